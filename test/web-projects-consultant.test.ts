// Projects as a consultant works them (issue 49 item 3), in headless Chromium on a real server: save
// the lot of the snapshot page to a new project, then a lot across the street to that project (accepted,
// with a remark kept on the project page); set the typology, which the public map then shows instead of
// "Unknown"; undo every kind of change from the history (an attached lot, a detached lot, the typology,
// a listing), each button named by what it does, and an undone change's row redoes, saying so.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient, projectContextOverMcp, projectLotsOverMcp } from './mcp-support.ts';
import { TEST_PASSWORD, csrfFrom, getPage, getUserToken, postForm, signUpOrIn } from './support/auth-flow.ts';
import { lotGapM } from '../src/projects/lot-adjacency.ts';
import type { MultiPolygonCoords } from '../src/core/geo/primitives.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const EMAIL = 'consultant-projects@example.com';
const ACORN = '11 Acorn St, Cambridge, MA';

let svc: TestServer;
let token: string;
before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], analysisWorkers: { concurrency: 0 } });
  token = await getUserToken(svc.url, EMAIL);
});
after(async () => {
  await svc?.close();
});

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
const context = (projectId: string) => projectContextOverMcp(svc.url, token, projectId);
const lotsOf = (projectId: string) => projectLotsOverMcp(svc.url, token, projectId);

async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded', timeout: 120_000 }), page.click(selector)]);
}
async function message(page: Page): Promise<{ kind: string; text: string } | null> {
  const el = await page.$('#page-message');
  if (!el) return null;
  return { kind: (await el.getAttribute('class')) ?? '', text: (await el.innerText()).trim() };
}
/** The labels of the history's buttons, newest row first. */
async function historyButtons(page: Page): Promise<string[]> {
  return page.$$eval('#history button', (bs) => bs.map((b) => (b.textContent ?? '').trim()));
}
/** Presses the history button with this label. */
async function press(page: Page, label: string): Promise<void> {
  const buttons = await historyButtons(page);
  const i = buttons.indexOf(label);
  assert.ok(i >= 0, `a history button "${label}" among: ${buttons.join(' | ')}`);
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded', timeout: 120_000 }), page.locator('#history button').nth(i).click()]);
}

/** An address on Acorn St whose lot touches neither 97-120 nor its lot lines: across the street. */
async function acrossTheStreet(): Promise<{ address: string; lotId: string }> {
  const parcel = async (id: string) =>
    (
      await svc.ctx.db.query<{ geom: MultiPolygonCoords | string }>("SELECT geom FROM parcels WHERE parcel_ext_id = $1 AND place_id LIKE 'US-MA%' LIMIT 1", [
        id,
      ])
    )[0]!.geom;
  const shape = (g: MultiPolygonCoords | string) => (typeof g === 'string' ? (JSON.parse(g) as MultiPolygonCoords) : g);
  const site = shape(await parcel('97-120'));
  const rows = await svc.ctx.db.query<{ full_address: string; parcel_ext_id: string }>(
    "SELECT full_address, parcel_ext_id FROM addresses WHERE street_key LIKE '%ACORN%' AND parcel_ext_id IS NOT NULL AND parcel_ext_id <> '97-120' AND unit = '' ORDER BY number, row_no",
  );
  for (const r of rows) {
    const gap = lotGapM(site, shape(await parcel(r.parcel_ext_id)));
    if (gap > 5 && gap < 60) return { address: `${r.full_address}, Cambridge, MA`, lotId: r.parcel_ext_id };
  }
  throw new Error(`no Acorn St lot across the street among ${rows.length} addresses`);
}

test('save from the snapshot, a lot across the street with a remark, typology on the public map, undo and redo of every change', {
  skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  const across = await acrossTheStreet();
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(120_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.url}/signin?next=%2Fprojects`);
    await page.fill('#email', EMAIL);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(/\/projects$/, { timeout: 120_000 }), page.click('#content button[type=submit]')]);

    // 1. The snapshot page: "Save to a project", a new project named after the address by default.
    await page.goto(`${svc.url}/sites?${new URLSearchParams({ address: ACORN })}`);
    await page.click('#save-to-project summary');
    assert.equal(await page.inputValue('#save-project'), '', 'a new project is the default');
    assert.match(await page.inputValue('#save-name'), /11 Acorn St/i);
    await page.fill('#save-name', 'Acorn Consultant');
    await submit(page, '#save-to-project-button');
    const projectId = /\/projects\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    assert.ok(projectId, page.url());
    assert.deepEqual(await message(page), { kind: 'ok', text: 'Project created with lot 97-120 as its build lot.' });
    assert.deepEqual(await lotsOf(projectId), ['97-120 build']);

    // 2. Another address's snapshot, saved to that existing project as a build lot: across the street,
    // so it is accepted with a remark, and the remark stays on the project page.
    await page.goto(`${svc.url}/sites?${new URLSearchParams({ address: across.address })}`);
    assert.equal(await page.innerText('#lot-id'), across.lotId);
    await page.click('#save-to-project summary');
    await page.selectOption('#save-project', { label: 'Acorn Consultant' });
    await page.selectOption('#save-role', 'build');
    await submit(page, '#save-to-project-button');
    assert.match(page.url(), new RegExp(`/projects/${projectId}$`));
    const saved = await message(page);
    assert.equal(saved?.kind, 'ok');
    assert.match(
      saved!.text,
      new RegExp(
        `^Lot ${across.lotId} saved to this project as a build lot\\. Build lot ${across.lotId} does not touch the project's other build lots \\(the nearest is about \\d+ m away\\)`,
      ),
    );
    assert.deepEqual(await lotsOf(projectId), ['97-120 build', `${across.lotId} build`].sort());
    const remark = await page.innerText(`#project-lots tr[data-lot="${across.lotId}"] .lot-remark`);
    assert.match(remark, /does not touch the project's other build lots/);
    await page.reload();
    assert.match(
      await page.innerText(`#project-lots tr[data-lot="${across.lotId}"]`),
      /does not touch/,
      'the remark is kept on the page, not only in the one-time message',
    );
    assert.equal(
      await page.$('#project-lots tr[data-lot="97-120"] .lot-remark'),
      null,
      'the site (the first build lot) carries no remark; the lot apart from it does',
    );

    // 3. Undo the attachment: the button names it; the undo's own row then redoes it, and says so.
    await press(page, `Undo: attached lot ${across.lotId} as a build lot`);
    assert.deepEqual(await message(page), { kind: 'ok', text: `Undone. Detached lot ${across.lotId}.` });
    assert.deepEqual(await lotsOf(projectId), ['97-120 build']);
    let buttons = await historyButtons(page);
    assert.ok(!buttons.includes(`Undo: attached lot ${across.lotId} as a build lot`), 'an undone change offers no second undo');
    assert.ok(buttons.includes(`Redo: attached lot ${across.lotId} as a build lot`), `the undo's row redoes, and says so: ${buttons.join(' | ')}`);
    for (const b of buttons) assert.match(b, /^(Undo|Redo): \S/, `every button says what it does: "${b}"`);
    await press(page, `Redo: attached lot ${across.lotId} as a build lot`);
    assert.deepEqual(await lotsOf(projectId), ['97-120 build', `${across.lotId} build`].sort(), 'the redo puts the lot back');

    // 4. Detach it with its button, then undo the detachment: the lot comes back with the facts it had.
    await submit(page, `#project-lots tr[data-lot="${across.lotId}"] button`);
    assert.deepEqual(await lotsOf(projectId), ['97-120 build']);
    await press(page, `Undo: detached lot ${across.lotId}`);
    assert.deepEqual(await message(page), { kind: 'ok', text: `Undone. Attached lot ${across.lotId} as a build lot.` });
    assert.deepEqual(await lotsOf(projectId), ['97-120 build', `${across.lotId} build`].sort());

    // 5. The typology: set on the details form, undone, redone; the tools see it.
    await page.selectOption('#details-typology', 'multi_family');
    await submit(page, '#project-details button[type=submit]');
    assert.deepEqual(await message(page), { kind: 'ok', text: 'Saved. The typology is now Multi-family.' });
    const told = await context(projectId);
    assert.equal(told.project.typology, 'multi_family');
    assert.match((told as { memoryDigest?: string }).memoryDigest ?? '', /typology multi_family/, "an agent's digest names it");
    await press(page, 'Undo: typology set to Multi-family');
    assert.deepEqual(await message(page), { kind: 'ok', text: 'Undone. The typology was cleared.' });
    assert.equal((await context(projectId)).project.typology, null);
    await press(page, 'Redo: typology set to Multi-family');
    assert.equal((await context(projectId)).project.typology, 'multi_family');
    assert.equal(await page.innerText('#project-typology'), 'Multi-family');

    // 6. Listed on the public map: the typology stated, not "Unknown"; the listing undone from the history.
    await page.check('input[name=confirm][value=yes]');
    await submit(page, 'form[action$="/listing"] button[type=submit]');
    assert.deepEqual(await message(page), { kind: 'ok', text: 'Listed on the public map.' });
    const map = await ctx.newPage();
    await map.goto(`${svc.url}/map`);
    const row = await map.innerText('table tbody tr');
    assert.match(row, /Acorn Consultant/);
    assert.match(row, /Multi-family/);
    assert.doesNotMatch(row, /Unknown/);
    await map.close();
    await press(page, 'Undo: listed on the public map');
    assert.deepEqual(await message(page), { kind: 'ok', text: 'Undone. Removed from the public map.' });
    assert.match(await page.innerText('#listing-state'), /^Not listed/);

    // 7. What cannot be undone has no button: creating the project (projects are kept).
    buttons = await historyButtons(page);
    assert.ok(!buttons.some((b) => /created/i.test(b)), buttons.join(' | '));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('over plain forms: a bylaw section attached is undone and redone; creating the project has no undo, and a forged undo of it is refused in words', async () => {
  const jar = await signUpOrIn(svc.url, EMAIL);
  const c: Client = await connectClient(svc.url, 'modern', token);
  let projectId: string;
  let attachReceipt: string;
  let createReceipt: string;
  try {
    const created = (await c.callTool({
      name: 'saveToProject',
      arguments: { action: 'create', name: 'Reference Undo', lat: 42.357579, lng: -71.109315, preview: false },
    })) as Result;
    projectId = created.structuredContent.project.projectId;
    createReceipt = created.structuredContent.receipt.receiptId;
    // As in projects-mcp.test.ts: Somerville's rules cite a held document; the project is placed there by hand.
    await svc.ctx.db.query(`UPDATE projects SET place_id = 'US-MA:somerville' WHERE project_id = $1`, [projectId]);
    const { loadPlaceRules } = await import('../src/rules/load-rules.ts');
    const rules = await loadPlaceRules(svc.ctx, 'somerville-ma');
    const cited = Object.values(rules.districts)
      .flatMap((d) => d.uses)
      .find((v) => v?.citation)!.citation!;
    const r = (await c.callTool({
      name: 'saveToProject',
      arguments: { action: 'attach_reference', projectId, sectionUuid: cited.sectionUuid, preview: false },
    })) as Result;
    assert.notEqual(r.isError, true, r.content.map((x) => x.text).join('\n'));
    attachReceipt = r.structuredContent.receipt.receiptId;
  } finally {
    await c.close();
  }
  const documents = async () => {
    const cc: Client = await connectClient(svc.url, 'modern', token);
    try {
      return ((await cc.callTool({ name: 'getProjectContext', arguments: { projectId, documentsLimit: 5, evidenceLimit: 1 } })) as Result).structuredContent
        .documents.items.length as number;
    } finally {
      await cc.close();
    }
  };
  assert.equal(await documents(), 1);
  const pageRes = await getPage(`${svc.url}/projects/${projectId}`, jar);
  assert.match(pageRes.body, /Undo: attached a bylaw section/);
  assert.doesNotMatch(pageRes.body, new RegExp(`name="receiptId" value="${createReceipt}"`), 'no button for creating the project');
  const undo = await postForm(`${svc.url}/projects/${projectId}/undo`, jar, { csrf: csrfFrom(pageRes.body), receiptId: attachReceipt });
  const after = await getPage(`${svc.url}${undo.location}`, jar);
  assert.match(after.body, /Undone\. Removed a bylaw section\./);
  assert.equal(await documents(), 0);
  assert.match(after.body, /Redo: attached a bylaw section/);
  const redoReceipt = /name="receiptId" value="([0-9a-f-]{36})"><button type="submit" class="undo-button">Redo: attached a bylaw section/.exec(after.body)?.[1];
  assert.ok(redoReceipt);
  const redo = await postForm(`${svc.url}/projects/${projectId}/undo`, jar, { csrf: csrfFrom(after.body), receiptId: redoReceipt });
  await getPage(`${svc.url}${redo.location}`, jar);
  assert.equal(await documents(), 1, 'the redo attached it again');
  const forged = await postForm(`${svc.url}/projects/${projectId}/undo`, jar, { csrf: csrfFrom(after.body), receiptId: createReceipt });
  const refused = await getPage(`${svc.url}${forged.location}`, jar);
  assert.match(
    refused.body,
    /class="error"[^>]*>Creating a project cannot be undone: projects are kept, never deleted\. Set its lifecycle status to Abandoned instead\. Nothing was changed\./,
  );
});
