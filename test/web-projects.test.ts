// The project pages over real HTTP with real web sessions: the list, a project page with its lots,
// the analysis status that reloads itself while a run is queued, the receipts history with undo,
// and another account's project answered 404.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { CookieJar, csrfFrom, getPage, getUserToken, postForm, signUpOrIn } from './support/auth-flow.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], analysisWorkers: { concurrency: 0 } });
});
after(async () => {
  await svc?.close();
});

test('project list and page: lots, self-refreshing status, history with undo; other accounts get 404', async () => {
  const token = await getUserToken(svc.url, 'web-owner@example.com');
  const jar = await signUpOrIn(svc.url, 'web-owner@example.com');
  const client = await connectClient(svc.url, 'modern', token);
  let projectId: string;
  let updateReceipt: string;
  try {
    const created = (await client.callTool({
      name: 'saveToProject',
      arguments: { action: 'create', name: 'Acorn <Web>', address: '11 Acorn St, Cambridge, MA', preview: false },
    })) as any;
    projectId = created.structuredContent.project.projectId;
    const upd = (await client.callTool({ name: 'updateProject', arguments: { projectId, name: 'Acorn Renamed', preview: false } })) as any;
    updateReceipt = upd.structuredContent.receipt.receiptId;
  } finally {
    await client.close();
  }

  assert.equal((await getPage(`${svc.url}/projects`, new CookieJar())).status, 303, 'signed out: to sign-in');
  const list = await getPage(`${svc.url}/projects`, jar);
  assert.equal(list.status, 200);
  assert.match(list.body, new RegExp(`href="/projects/${projectId}">Acorn Renamed<`));

  const pageRes = await getPage(`${svc.url}/projects/${projectId}`, jar);
  assert.equal(pageRes.status, 200);
  assert.match(pageRes.body, /97-120/);
  assert.match(pageRes.body, /Status: <code class="status">none<\/code>/);
  assert.doesNotMatch(pageRes.body, /http-equiv="refresh"/);
  assert.match(pageRes.body, new RegExp(`name="receiptId" value="${updateReceipt}"`));
  assert.match(pageRes.body, /name: Acorn &lt;Web&gt; → Acorn Renamed/, 'history shows the change, escaped');
  // ... in words: what was done, and values without raw JSON.
  assert.match(pageRes.body, /<td>Created the project<\/td>/);
  assert.match(pageRes.body, /<td>Renamed the project<\/td>/, 'the action done, not the tool');
  assert.match(pageRes.body, /build lot: lot 97-120 \(build\)/);
  assert.match(pageRes.body, /location: 42\.\d{5}, -71\.\d{5} \(from the address\)/);
  const history = pageRes.body.slice(pageRes.body.indexOf('<h2>History</h2>'));
  assert.doesNotMatch(history, /\{&quot;|\{"|saveToProject|updateProject/, 'no JSON or tool names in the history');

  const undo = await postForm(`${svc.url}/projects/${projectId}/undo`, jar, { csrf: csrfFrom(pageRes.body), receiptId: updateReceipt });
  assert.equal(undo.status, 303);
  const afterUndo = await getPage(`${svc.url}${undo.location}`, jar);
  assert.match(afterUndo.body, /Undone\./);
  assert.match(afterUndo.body, /<h1>Acorn &lt;Web&gt;<\/h1>/);
  assert.doesNotMatch(afterUndo.body, new RegExp(`name="receiptId" value="${updateReceipt}"`), 'an undone receipt offers no second undo');

  const queued = await postForm(`${svc.url}/projects/${projectId}/analyze`, jar, { csrf: csrfFrom(afterUndo.body) });
  assert.equal(queued.status, 303);
  const working = await getPage(`${svc.url}/projects/${projectId}`, jar);
  assert.match(working.body, /Status: <code class="status">queued<\/code>/);
  assert.match(working.body, /<meta http-equiv="refresh" content="5">/, 'reloads itself while the run is queued');
  // Once current, the analysis's values carry the worded badges the snapshot page uses, not raw codes
  // (this server runs no workers, so that "queued" above holds still: one runs the queue now).
  const { startAnalysisWorkers, workerOptions } = await import('../src/analysis/analysis-workers.ts');
  const workers = startAnalysisWorkers(svc.ctx, workerOptions(svc.ctx.config, { concurrency: 1, pollMs: 50 }));
  let done = working.body;
  try {
    for (let i = 0; i < 120 && !/Status: <code class="status">current<\/code>/.test(done); i++) {
      await new Promise((r) => setTimeout(r, 500));
      done = (await getPage(`${svc.url}/projects/${projectId}`, jar)).body;
    }
  } finally {
    await workers.stop();
  }
  assert.match(done, /Status: <code class="status">current<\/code>/);
  // A derived value without a number says why in the words of every surface (core/value-words.ts), never "Unknown" beside an amber badge.
  assert.match(
    done,
    /<tr><th>Maximum floor area<\/th><td>Not calculated <span class="badge badge-\w+" data-status="unverified_default"[^>]*>indicative, unverified<\/span><br><small class="muted why">Not calculated: maximum floor area ratio \(FAR\) (reads “No limit, per S\d+”, which no bylaw text confirms|is not known)/,
  );
  assert.doesNotMatch(done, /<code class="status">(unverified_default|not_extracted|cited)<\/code>/);

  const stranger = await signUpOrIn(svc.url, 'web-stranger@example.com');
  assert.equal((await getPage(`${svc.url}/projects/${projectId}`, stranger)).status, 404);
  const strangerList = await getPage(`${svc.url}/projects`, stranger);
  assert.doesNotMatch(strangerList.body, new RegExp(projectId));
  const forged = await postForm(`${svc.url}/projects/${projectId}/undo`, stranger, {
    csrf: csrfFrom(strangerList.body.includes('csrf') ? strangerList.body : (await getPage(`${svc.url}/account`, stranger)).body),
    receiptId: updateReceipt,
  });
  assert.equal(forged.status, 404);
  assert.doesNotMatch((await getPage(`${svc.url}/projects/${projectId}`, jar)).body, /Undone[\s\S]*Undone/);
});

test('a person without an agent: the menu leads to projects, a project is created from a form, analysed, and its PDF report exported', async () => {
  const jar = await signUpOrIn(svc.url, 'web-maker@example.com');
  const account = await getPage(`${svc.url}/account`, jar);
  for (const [href, label] of [
    ['/projects', 'Projects'],
    ['/map', 'Map'],
    ['/feedback', 'Feedback'],
  ])
    assert.match(account.body, new RegExp(`<a href="${href}"[^>]*>${label}</a>`), `the menu links ${href}`);
  assert.doesNotMatch((await getPage(`${svc.url}/sites`, new CookieJar())).body, /href="\/projects"/, 'no Projects link when signed out');

  const list = await getPage(`${svc.url}/projects`, jar);
  assert.match(list.body, /id="create-project"/);
  // A bad address is refused on the form, with the service's reason and what was typed kept.
  const bad = await postForm(`${svc.url}/projects`, jar, { csrf: csrfFrom(list.body), name: 'Nowhere', address: '999 Nowhere Rd, Cambridge, MA' });
  assert.equal(bad.status, 400);
  assert.match(
    bad.body,
    /id="create-error">The address &quot;999 Nowhere Rd, Cambridge, MA&quot; could not be placed: geocode_failed: .*No approximate location is given in its place\. Correct the address/,
  );
  assert.doesNotMatch(bad.body, /No approximate location is used/, 'said once');
  assert.match(bad.body, /value="999 Nowhere Rd, Cambridge, MA"/);
  const made = await postForm(`${svc.url}/projects`, jar, { csrf: csrfFrom(list.body), name: 'Acorn by hand', address: '11 Acorn St, Cambridge, MA' });
  assert.equal(made.status, 303);
  // The outcome travels in a one-time cookie, not in the URL: shown on the next load, gone on a reload.
  const projectId = /^\/projects\/([0-9a-f-]{36})$/.exec(made.location ?? '')?.[1];
  assert.ok(projectId, made.location ?? '');
  const shown = await getPage(`${svc.url}/projects/${projectId}`, jar);
  assert.match(shown.body, /<h1>Acorn by hand<\/h1>/);
  assert.match(shown.body, /<p id="page-message" class="ok" role="status">Project created\./);
  assert.doesNotMatch((await getPage(`${svc.url}/projects/${projectId}`, jar)).body, /Project created\./, 'a reload does not show it again');
  assert.match(shown.body, /97-120/, 'the lot at the address is the build lot');

  // Export before any analysis has finished: refused, with the reason, nothing spent.
  const early = await postForm(`${svc.url}/projects/${projectId}/report`, jar, { csrf: csrfFrom(shown.body), audience: 'owner', detail: 'brief' });
  assert.equal(early.status, 303);
  assert.equal(early.location, `/projects/${projectId}`);
  const refusedPage = (await getPage(`${svc.url}/projects/${projectId}`, jar)).body;
  assert.match(
    refusedPage,
    /<p id="page-message" class="error" role="alert">[^<]*Run the analysis, wait until its status is current/,
    'a refusal is shown as one, in words',
  );
  assert.doesNotMatch(refusedPage, /runFeasibilityAnalysis|getProjectContext|produceProjectReport/, 'no tool names on the page');

  // "Analysis queued." is said once: the next load shows it, a reload (or the page's own refresh) does not.
  const queued = await postForm(`${svc.url}/projects/${projectId}/analyze`, jar, { csrf: csrfFrom(shown.body) });
  assert.equal(queued.location, `/projects/${projectId}`);
  assert.match((await getPage(`${svc.url}/projects/${projectId}`, jar)).body, /role="status">Analysis queued\./);
  assert.doesNotMatch((await getPage(`${svc.url}/projects/${projectId}`, jar)).body, /Analysis queued\./);

  // Analyse (this server runs no workers: one runs the queue now), then export: the PDF opens from its signed link.
  await postForm(`${svc.url}/projects/${projectId}/analyze`, jar, { csrf: csrfFrom(shown.body) });
  const { startAnalysisWorkers, workerOptions } = await import('../src/analysis/analysis-workers.ts');
  const workers = startAnalysisWorkers(svc.ctx, workerOptions(svc.ctx.config, { concurrency: 1, pollMs: 50 }));
  try {
    let body = '';
    for (let i = 0; i < 120 && !/Status: <code class="status">current<\/code>/.test(body); i++) {
      await new Promise((r) => setTimeout(r, 500));
      body = (await getPage(`${svc.url}/projects/${projectId}`, jar)).body;
    }
    assert.match(body, /Status: <code class="status">current<\/code>/);
    const exported = await postForm(`${svc.url}/projects/${projectId}/report`, jar, { csrf: csrfFrom(body), audience: 'owner', detail: 'brief' });
    assert.equal(exported.status, 303);
    assert.match(exported.location ?? '', /^\/reports\/exports\/[^/]+\.pdf\?expires=\d+&sig=/);
    const pdf = await fetch(`${svc.url}${exported.location}`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
  } finally {
    await workers.stop();
  }
});
