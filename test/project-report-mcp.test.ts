// produceProjectReport over the official MCP SDK client with real user tokens and a Cambridge
// project: listing without identifiers, the "no analysis yet" refusal, preview (no spend, no URL),
// confirm -> signed URL -> a PDF parsed back with pdf.js, a retry that does not spend twice, an
// altered link refused, the meter exhausted, another account refused, and the account page's usage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { claimUserIdentity, getPage, getUserToken, onServer, tokenRequest, JWT_BEARER_GRANT, type CookieJar } from './support/auth-flow.ts';
import { ManualClock } from '../src/clock.ts';
import { startAnalysisWorkers, workerOptions } from '../src/analysis/analysis-workers.ts';
import { STATUS_WORDS } from '../src/reports/report-outline.ts';
import { REPORT_EXPORTS_PER_MONTH } from '../src/reports/export-store.ts';

let svc: TestServer;
let tokenA: string;
let jarA: CookieJar;
let tokenB: string;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], clock: new ManualClock(Date.now()), analysisWorkers: { concurrency: 0 } });
  const a = await claimUserIdentity(svc.url, 'reporter-a@example.com');
  const tok = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: a.identityAssertion });
  assert.equal(tok.status, 200);
  tokenA = tok.json.access_token as string;
  jarA = a.jar;
  tokenB = await getUserToken(svc.url, 'reporter-b@example.com');
});
after(async () => {
  await svc?.close();
});

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as Result;
const text = (r: Result) => r.content.map((c) => c.text).join('\n');
const ok = (r: Result) => {
  assert.notEqual(r.isError, true, text(r));
  return r.structuredContent;
};
const fails = (r: Result, re: RegExp) => {
  assert.equal(r.isError, true, `expected an error, got ${text(r)}`);
  assert.match(text(r), re);
};
async function spent() {
  const [row] = await svc.ctx.db.query<{ e: number; used: number }>(
    'SELECT (SELECT count(*)::int FROM report_exports) AS e, (SELECT coalesce(sum(used), 0)::int FROM report_export_meter) AS used',
  );
  return row!;
}
async function pdfText(pdf: Uint8Array, upToPage = Infinity): Promise<string> {
  const doc = await getDocument({ data: pdf.slice(), useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= Math.min(doc.numPages, upToPage); i++)
    pages.push((await (await doc.getPage(i)).getTextContent()).items.map((it) => ('str' in it ? it.str : '')).join(' '));
  await doc.destroy();
  return pages.join(' ').replace(/\s+/g, ' ');
}

/** Queues the project's analysis through the tool, runs a worker until it succeeds, and returns the stored result. */
async function analysed(client: Client, projectId: string): Promise<any> {
  const run = ok(await call(client, 'runFeasibilityAnalysis', { projectId }));
  const w = startAnalysisWorkers(svc.ctx, workerOptions(svc.ctx.config, { concurrency: 1, pollMs: 20 }));
  try {
    for (const deadline = Date.now() + 180_000; ; ) {
      const [r] = await svc.ctx.db.query<{ status: string }>('SELECT status FROM analysis_runs WHERE run_id = $1', [run.runId]);
      if (r?.status === 'succeeded') break;
      assert.ok(r?.status !== 'failed' && Date.now() < deadline, `run ended ${r?.status}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  } finally {
    await w.stop();
  }
  const [stored] = await svc.ctx.db.query<{ result: string }>('SELECT result FROM analysis_runs WHERE run_id = $1', [run.runId]);
  return JSON.parse(stored!.result);
}

test('produceProjectReport: list, no-analysis refusal, preview, confirm, PDF, retry, tampering, meter, other account, account page', async () => {
  const a = await connectClient(svc.url, 'modern', tokenA);
  const b = await connectClient(svc.url, 'modern', tokenB);
  try {
    const base = { audience: 'investor', detail: 'detailed' };
    const created = ok(await call(a, 'saveToProject', { action: 'create', name: 'Acorn Report Site', address: '11 Acorn St, Cambridge, MA', preview: false }));
    const projectId = created.projectId ?? created.project?.projectId;
    assert.ok(projectId, JSON.stringify(created));

    // Neither identifier: the caller's projects, nothing composed or spent.
    const listed = ok(await call(a, 'produceProjectReport', { ...base, preview: false, confirm: true }));
    assert.equal(listed.action, 'listed');
    assert.deepEqual(
      listed.projects.map((p: any) => p.projectId),
      [projectId],
    );
    assert.deepEqual(await spent(), { e: 0, used: 0 });

    // No analysis yet: refused, told to run it, nothing spent.
    fails(await call(a, 'produceProjectReport', { ...base, projectId, preview: false, confirm: true }), /runFeasibilityAnalysis/);
    assert.deepEqual(await spent(), { e: 0, used: 0 });

    const analysis = await analysed(a, projectId);

    // Preview: outline and page count, no URL, nothing spent.
    const pv = ok(await call(a, 'produceProjectReport', { ...base, project: 'acorn report', preview: true, confirm: false }));
    assert.equal(pv.action, 'preview');
    assert.ok(pv.pageCount >= 1);
    assert.ok(pv.outline.sections.includes('Capacity at a glance'), JSON.stringify(pv.outline));
    assert.equal(pv.url, undefined);
    assert.doesNotMatch(text(await call(a, 'produceProjectReport', { ...base, projectId, preview: true, confirm: false })), /\/reports\/exports\//);
    assert.deepEqual(await spent(), { e: 0, used: 0 });

    // preview false without confirm: a clear tool error, nothing spent.
    fails(await call(a, 'produceProjectReport', { ...base, projectId, preview: false, confirm: false }), /confirm must be true/);
    assert.deepEqual(await spent(), { e: 0, used: 0 });

    // Confirmed: a signed URL (never bytes), one unit spent.
    const args = { ...base, projectId, preview: false, confirm: true, planName: 'Option B', request: 'Please show <b>capacity</b> first' };
    const first = await call(a, 'produceProjectReport', args);
    const ex = ok(first);
    assert.equal(ex.action, 'exported');
    assert.equal(ex.spent, true);
    assert.match(ex.url, /\/reports\/exports\/[0-9a-f-]{36}\.pdf\?expires=\d+&sig=/);
    assert.ok(
      first.content.every((c) => c.type === 'text' && !c.text.includes('%PDF')),
      'no PDF bytes in the result',
    );
    assert.deepEqual(await spent(), { e: 1, used: 1 });
    assert.equal(ex.usage.used, 1);
    assert.equal(ex.usage.remaining, REPORT_EXPORTS_PER_MONTH - 1);

    const res = await fetch(onServer(svc.url, ex.url));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.equal(Buffer.from(pdf.subarray(0, 5)).toString(), '%PDF-');
    const body = await pdfText(pdf);
    assert.match(body, /Acorn Report Site/);
    assert.match(body, /Option B/);
    assert.match(body, /<b>capacity<\/b>/, 'the request is printed as text');
    // Cambridge ships a street layer: the map draws the streets under the lots, and its legend says so.
    // The parcels around the project are drawn too (issue 49), listed after the project's own lots.
    assert.match(body, /Build lot (Context lot )?Neighbouring lot Street (District|Overlay) /, 'neighbouring lots and streets on the map, in its legend');
    // Page 1 says where the district came from: Cambridge's zoning map, named with its vintage.
    const firstPage = await pdfText(pdf, 1);
    assert.match(firstPage, /District [A-Z0-9.-]+: from the zoning map \([^)]+, vintage [^)]+\)\./, 'the district source on page 1');
    const statuses = new Set<string>([...Object.values(analysis.derived), ...Object.values(analysis.standards)].map((v: any) => v.status));
    assert.ok(statuses.size >= 1);
    for (const s of statuses)
      assert.ok(
        body.includes(STATUS_WORDS[s as keyof typeof STATUS_WORDS]),
        `status ${s} in words ("${STATUS_WORDS[s as keyof typeof STATUS_WORDS]}") is in the PDF`,
      );
    for (const l of analysis.buildLots) assert.ok(body.includes(l.parcelExternalId), `build lot ${l.parcelExternalId} is named`);
    // The analysis names standards and statuses by their keys for agents; the PDF reads them out in words.
    assert.doesNotMatch(body, /\b(maxFar|maxUnitsPerLot|maxDensityUnitsPerAcre|minLotAreaPerUnitSqft|not_extracted|unverified_default|derived_from_cited)\b/);

    // The same confirmed call again: the same export, nothing spent twice.
    const again = ok(await call(a, 'produceProjectReport', args));
    assert.equal(again.exportId, ex.exportId);
    assert.equal(again.duplicate, true);
    assert.equal(again.spent, false);
    assert.deepEqual(await spent(), { e: 1, used: 1 });

    // Altered links are refused.
    const u = new URL(onServer(svc.url, ex.url));
    const sig = u.searchParams.get('sig')!;
    const badSig = new URL(u);
    badSig.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    assert.equal((await fetch(badSig)).status, 403);
    const badExpiry = new URL(u);
    badExpiry.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600));
    assert.equal((await fetch(badExpiry)).status, 403);
    const otherId = new URL(u);
    otherId.pathname = otherId.pathname.replace(/[0-9a-f]{12}\.pdf$/, '000000000000.pdf');
    assert.equal((await fetch(otherId)).status, 403);

    // Another account cannot report on the project (same answer as no such project), nothing spent.
    fails(await call(b, 'produceProjectReport', { ...args, preview: true, confirm: false }), /No project of yours has projectId/);
    fails(await call(b, 'produceProjectReport', { ...base, project: 'Acorn Report Site', preview: false, confirm: true }), /None of your projects/);
    const bList = ok(await call(b, 'produceProjectReport', { ...base, preview: true, confirm: false }));
    assert.equal(bList.total, 0);
    assert.deepEqual(await spent(), { e: 1, used: 1 });

    // The account page shows the usage.
    const acct = await getPage(`${svc.url}/account`, jarA);
    assert.equal(acct.status, 200);
    assert.match(acct.body, new RegExp(`id="report-exports">[^<]*: 1 of ${REPORT_EXPORTS_PER_MONTH} used, ${REPORT_EXPORTS_PER_MONTH - 1} left`));

    // Meter used up (the rest of the month's allowance consumed): a clear tool error, nothing spent.
    await svc.ctx.db.query('UPDATE report_export_meter SET used = $1', [REPORT_EXPORTS_PER_MONTH]);
    fails(
      await call(a, 'produceProjectReport', { ...args, planName: 'Option C' }),
      new RegExp(`used its ${REPORT_EXPORTS_PER_MONTH} report exports.*nothing was spent`),
    );
    assert.deepEqual(await spent(), { e: 1, used: REPORT_EXPORTS_PER_MONTH });
    // A preview stays free.
    ok(await call(a, 'produceProjectReport', { ...args, planName: 'Option C', preview: true, confirm: false }));
  } finally {
    await a.close();
    await b.close();
  }
});

test("a lot whose polygon and assessor areas disagree: the warning travels from the lot to the project's lots, the analysis and the PDF", async () => {
  const c = await connectClient(svc.url, 'modern', await getUserToken(svc.url, 'reporter-c@example.com'));
  try {
    // 3 Harris St: lot 151-77's polygon measures 166 sq ft, the assessor gives 2,224 sq ft of land.
    const created = ok(await call(c, 'saveToProject', { action: 'create', name: 'Harris St', address: '3 Harris St, Cambridge, MA', preview: false }));
    const projectId = created.projectId ?? created.project?.projectId;
    const context = ok(await call(c, 'getProjectContext', { projectId, documentsLimit: 0, evidenceLimit: 0 }));
    const lot = context.lots.find((l: any) => l.parcelExternalId === '151-77');
    assert.ok(lot, JSON.stringify(context.lots));
    assert.match(lot.warnings.join(' '), /polygon measures 166 sq ft, but the assessor table gives 2,224 sq ft/);
    assert.match(context.memoryDigest, /Lot 151-77: The lot polygon measures 166 sq ft/, 'the digest a text-only reader gets says it too');

    const analysis = await analysed(c, projectId);
    assert.ok(
      analysis.notes.some((n: string) => /^Lot 151-77: The lot polygon measures 166 sq ft/.test(n)),
      JSON.stringify(analysis.notes),
    );

    const ex = ok(await call(c, 'produceProjectReport', { audience: 'investor', detail: 'detailed', projectId, preview: false, confirm: true }));
    const body = await pdfText(new Uint8Array(await (await fetch(onServer(svc.url, ex.url))).arrayBuffer()));
    assert.match(body, /Lot 151-77: The lot polygon measures 166 sq ft, but the assessor table gives 2,224 sq ft of land/);
  } finally {
    await c.close();
  }
});
