// The project page as a full editor (issue 26): in headless Chromium on a real server with a signed-in
// session, a neighbouring lot is attached by clicking it on the map (drawn from our own tiles), then
// detached; the project is renamed, its lifecycle status and external reference set, the rename undone
// from the history; refusals (an external reference out of form, a lot beyond the search radius, the
// only build lot) are worded for a person. Each change is read back through the MCP getProjectContext
// tool, so the page and the tools agree. Over plain HTTP forms (the no-JavaScript path): attach by
// address, the stale undo, the name too long, an unknown lot, a demotion of the build lot, another
// account's project. No page shows an MCP tool name.
import fs from 'node:fs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './support/harness.ts';
import { projectContextOverMcp, projectLotsOverMcp } from './mcp-support.ts';
import { type CookieJar, TEST_PASSWORD, csrfFrom, getPage, getUserToken, postForm, signUpOrIn } from './support/auth-flow.ts';
import { MCP_TOOLS } from '../src/mcp/registry.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const EMAIL = 'editor-web@example.com';
/** Every MCP tool name, from the registry itself (no list kept here). */
const TOOL_NAMES = new RegExp(`\\b(${MCP_TOOLS.map((t) => t.name).join('|')})\\b`);
/** Error codes and parameter names that would be a refusal's only words. */
const RAW_WORDS = /\b(bad_input|not_found|conflict|parcelExternalIds?|radiusM|undoOperationId|externalRef|lifecycleStatus)\b/;

let svc: TestServer;
let token: string;
let jar: CookieJar;
before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], analysisWorkers: { concurrency: 0 } });
  token = await getUserToken(svc.url, EMAIL);
  jar = await signUpOrIn(svc.url, EMAIL);
});
after(async () => {
  await svc?.close();
});

const context = (projectId: string) => projectContextOverMcp(svc.url, token, projectId);
const lotsOf = (projectId: string) => projectLotsOverMcp(svc.url, token, projectId);

/** The page's visible text has no MCP tool name. */
async function noToolNames(page: Page, where: string): Promise<void> {
  const text = await page.evaluate(() => document.body.innerText);
  assert.doesNotMatch(text, TOOL_NAMES, `${where}: a tool name on the page`);
}
/** The one-time message of the page (null when none), with its kind. */
async function message(page: Page): Promise<{ kind: string; text: string } | null> {
  const el = await page.$('#page-message');
  if (!el) return null;
  return { kind: (await el.getAttribute('class')) ?? '', text: (await el.innerText()).trim() };
}
async function submit(page: Page, selector: string): Promise<void> {
  // Waits for the answer's document (not its map tiles); generous, for a loaded machine.
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded', timeout: 120_000 }), page.click(selector)]);
}
async function mapReady(page: Page): Promise<void> {
  await page.waitForSelector('#project-map[data-state=ready]', { timeout: 120_000 });
}
/** Lots drawn on a layer of the page's map. */
async function drawn(page: Page, layer: string): Promise<Record<string, string>> {
  return page.evaluate((l) => {
    const m = (window as any).sitelineMaps[0];
    return Object.fromEntries(m.queryRenderedFeatures({ layers: [l] }).map((f: any) => [String(f.properties.lot), String(f.properties.role ?? '')]));
  }, layer);
}
/** Text of the page without its tags (the HTTP-only checks). */
const visible = (body: string) => body.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').replace(/<[^>]+>/g, ' ');

test('the project page edits the project in Chromium: click a lot on the map to attach it, detach, rename, status, external ref, undo, refusals in words', {
  skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await ctx.newPage();
    // Guards against a hang, generous for a machine shared by many test runs (nothing here is timed).
    page.setDefaultTimeout(120_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.url}/signin?next=%2Fprojects`);
    await page.fill('#email', EMAIL);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(/\/projects$/, { timeout: 120_000 }), page.click('#content button[type=submit]')]);

    // Create from the list page's form: the lot at the address is the build lot.
    await page.fill('#project-name', 'Editor Acorn');
    await page.fill('#project-address', '11 Acorn St, Cambridge, MA');
    await submit(page, '#create-project button[type=submit]');
    const projectId = /\/projects\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    assert.ok(projectId, page.url());
    assert.deepEqual(await lotsOf(projectId), ['97-120 build']);
    await mapReady(page);
    assert.deepEqual(await drawn(page, 'lots-fill'), { '97-120': 'build' }, 'the build lot is drawn');
    const neighbours = await drawn(page, 'neighbours-fill');
    assert.ok(Object.keys(neighbours).length >= 3, `neighbouring lots are drawn: ${Object.keys(neighbours).join(', ')}`);
    assert.ok(!('97-120' in neighbours), 'an attached lot is not offered as a neighbour');
    await noToolNames(page, 'new project page');

    // Click the neighbouring lot nearest the build lot, at a point inside it (the parcel's inside point).
    const placeId = (await svc.ctx.db.query<{ place_id: string }>('SELECT place_id FROM projects WHERE project_id = $1', [projectId]))[0]!.place_id;
    const candidates = await svc.ctx.db.query<{ parcel_ext_id: string; inside_lat: number; inside_lon: number }>(
      `SELECT p.parcel_ext_id, p.inside_lat, p.inside_lon FROM parcels p, parcels b
       WHERE p.place_id = $1 AND b.place_id = $1 AND b.parcel_ext_id = '97-120' AND p.parcel_ext_id = ANY($2::text[])
       ORDER BY (p.inside_lat - b.inside_lat) ^ 2 + (p.inside_lon - b.inside_lon) ^ 2 LIMIT 10`,
      [placeId, Object.keys(neighbours)],
    );
    let target: { id: string; x: number; y: number } | null = null;
    for (const c of candidates) {
      const at = await page.evaluate(
        ({ lng, lat, id }) => {
          const m = (window as any).sitelineMaps[0];
          const p = m.project([lng, lat]);
          const r = m.getCanvas().getBoundingClientRect();
          const hits = m.queryRenderedFeatures([p.x, p.y], { layers: ['lots-fill', 'neighbours-fill'] });
          return hits[0]?.properties.lot === id && p.x > 20 && p.y > 20 && p.x < r.width - 20 && p.y < r.height - 20
            ? { x: r.left + p.x, y: r.top + p.y }
            : null;
        },
        { lng: c.inside_lon, lat: c.inside_lat, id: c.parcel_ext_id },
      );
      if (at) {
        target = { id: c.parcel_ext_id, ...at };
        break;
      }
    }
    assert.ok(target, 'a neighbouring lot lies in view to click');
    await page.mouse.click(target.x, target.y);
    await page.waitForFunction((id) => document.getElementById('map-selection')?.textContent?.includes(`Selected lot ${id}`), target.id);
    assert.equal(await page.inputValue('#attach-parcel'), target.id, 'the click filled the attach form');
    assert.deepEqual(Object.keys(await drawn(page, 'selected-fill')), [target.id], 'the selected lot is outlined on the map');
    await submit(page, '#attach-context');
    assert.deepEqual(await message(page), { kind: 'ok', text: `Lot ${target.id} attached as a context lot.` });
    assert.deepEqual(await lotsOf(projectId), ['97-120 build', `${target.id} context`].sort(), 'the tools see the lot the page attached');
    await mapReady(page);
    assert.deepEqual(await drawn(page, 'lots-fill'), { '97-120': 'build', [target.id]: 'context' }, 'build and context lots drawn apart');
    assert.match(await page.innerText('#history'), /Attached a context lot/);
    await page.reload({ waitUntil: 'domcontentloaded' });
    assert.equal(await message(page), null, 'the outcome is shown once');

    // Detach it from its row.
    await submit(page, `#project-lots tr[data-lot="${target.id}"] button`);
    assert.deepEqual(await message(page), { kind: 'ok', text: `Lot ${target.id} detached (it was a context lot).` });
    assert.deepEqual(await lotsOf(projectId), ['97-120 build'], 'the tools see the detach');
    assert.match(await page.innerText('#history'), /Detached a context lot/);

    // The only build lot cannot be detached: said in words, nothing changed.
    await submit(page, '#project-lots tr[data-lot="97-120"] button');
    const lastBuild = await message(page);
    assert.equal(lastBuild?.kind, 'error');
    assert.match(lastBuild!.text, /only build lot.*Attach another build lot first/);
    assert.deepEqual(await lotsOf(projectId), ['97-120 build']);

    // A lot beyond the search radius: typed by id (the no-JavaScript path), refused with the radius it needs; then attached with it.
    const [far] = await svc.ctx.db.query<{ parcel_ext_id: string; d: number }>(
      `SELECT parcel_ext_id, sqrt(((inside_lat - $2) * 111320) ^ 2 + ((inside_lon - $3) * 111320 * cos(radians($2))) ^ 2) AS d FROM parcels
       WHERE place_id = $1 AND sqrt(((inside_lat - $2) * 111320) ^ 2 + ((inside_lon - $3) * 111320 * cos(radians($2))) ^ 2) BETWEEN 500 AND 900 ORDER BY parcel_ext_id LIMIT 1`,
      [placeId, (await context(projectId)).project.location.lat, (await context(projectId)).project.location.lng],
    );
    assert.ok(far, 'a lot 500-900 m away');
    await page.fill('#attach-parcel', far.parcel_ext_id);
    await submit(page, '#attach-context');
    const tooFar = await message(page);
    assert.equal(tooFar?.kind, 'error');
    const need = /Set the search radius to at least (\d+) m and attach it again\. Nothing was attached\./.exec(tooFar!.text);
    assert.ok(need, tooFar!.text);
    assert.match(tooFar!.text, new RegExp(`^Lot ${far.parcel_ext_id} is about [\\d,]+ m from the project's location, beyond the search radius of 150 m\\.`));
    assert.doesNotMatch(tooFar!.text, RAW_WORDS);
    assert.deepEqual(await lotsOf(projectId), ['97-120 build']);
    await page.fill('#attach-parcel', far.parcel_ext_id);
    await page.fill('#attach-radius', need[1]!);
    await submit(page, '#attach-context');
    assert.deepEqual(await message(page), { kind: 'ok', text: `Lot ${far.parcel_ext_id} attached as a context lot.` });
    assert.deepEqual(await lotsOf(projectId), ['97-120 build', `${far.parcel_ext_id} context`].sort());

    // Rename alone, then status and external reference: two changes in the history.
    await page.fill('#details-name', 'Editor Renamed');
    await submit(page, '#project-details button[type=submit]');
    assert.deepEqual(await message(page), { kind: 'ok', text: 'Saved. The name is now “Editor Renamed”.' });
    assert.equal(await page.innerText('h1'), 'Editor Renamed');
    await page.selectOption('#details-status', 'due_diligence');
    await page.fill('#details-ref', 'procore:4711');
    await submit(page, '#project-details button[type=submit]');
    assert.deepEqual(await message(page), {
      kind: 'ok',
      text: 'Saved. The lifecycle status is now Due diligence. The external reference is now procore:4711.',
    });
    let seen = (await context(projectId)).project;
    assert.deepEqual(
      [seen.name, seen.lifecycleStatus, seen.externalRef],
      ['Editor Renamed', 'due_diligence', 'procore:4711'],
      'the tools see the details the page saved',
    );

    // An external reference out of form: refused in words, nothing changed.
    await page.fill('#details-ref', `crm:${'x'.repeat(250)}`);
    await submit(page, '#project-details button[type=submit]');
    const badRef = await message(page);
    assert.equal(badRef?.kind, 'error');
    assert.match(badRef!.text, /^The external reference must look like system:id .*e\.g\. procore:12345\. Nothing was changed\.$/);
    assert.doesNotMatch(badRef!.text, RAW_WORDS);
    seen = (await context(projectId)).project;
    assert.equal(seen.externalRef, 'procore:4711');

    // Undo the rename from the history: the name comes back, the later status and reference stay.
    const history = await page.innerText('#history');
    assert.match(history, /Renamed the project/);
    assert.match(history, /Changed the lifecycle status, set the external reference/);
    await submit(page, '#history tr:has-text("Renamed the project") button');
    assert.deepEqual(await message(page), { kind: 'ok', text: 'Undone. The name is now “Editor Acorn”.' });
    assert.equal(await page.innerText('h1'), 'Editor Acorn');
    seen = (await context(projectId)).project;
    assert.deepEqual([seen.name, seen.lifecycleStatus, seen.externalRef], ['Editor Acorn', 'due_diligence', 'procore:4711'], 'the tools see the undo');
    assert.match(await page.innerText('#history'), /Undid a change \(renamed the project\)/);
    assert.equal(
      await page.$$eval('#history tr:has-text("Renamed the project") button', (b) => b.length),
      1,
      'only the undo itself is offered (the undone rename is not)',
    );
    await noToolNames(page, 'the edited project page');
    await page.goto(`${svc.url}/projects`);
    await noToolNames(page, 'the project list');
    assert.deepEqual(errors, [], 'no page errors');
    await ctx.close();
  } finally {
    await browser.close();
  }
});

test('the editor over plain HTTP forms: attach by address, stale undo, long name, unknown lot, demoting the build lot, another account; refusals in words', async () => {
  const list = await getPage(`${svc.url}/projects`, jar);
  const made = await postForm(`${svc.url}/projects`, jar, { csrf: csrfFrom(list.body), name: 'Forms Acorn', address: '11 Acorn St, Cambridge, MA' });
  assert.equal(made.status, 303);
  const path = made.location!;
  const projectId = path.split('/').pop()!;
  const csrf = csrfFrom((await getPage(`${svc.url}${path}`, jar)).body);
  /** Posts a form of the page and returns the one-time message it shows next. */
  const send = async (action: string, fields: Record<string, string>) => {
    const r = await postForm(`${svc.url}${path}${action}`, jar, { csrf, ...fields });
    assert.equal(r.status, 303, `${action}: ${r.status}`);
    assert.equal(r.location, path);
    const shown = (await getPage(`${svc.url}${path}`, jar)).body;
    assert.doesNotMatch(visible(shown), TOOL_NAMES, `${action}: a tool name on the page`);
    const m = /<p id="page-message" class="(ok|error)" role="(?:status|alert)">([^<]*)<\/p>/.exec(shown);
    assert.ok(m, `${action}: a message`);
    return { kind: m[1]!, text: m[2]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'") };
  };

  // Attach by address (no map click): the lot the address names, as a context lot.
  const byAddress = await send('/lots', { parcelExternalId: '', address: '13 Acorn St, Cambridge, MA', radiusM: '150', role: 'context' });
  assert.equal(byAddress.kind, 'ok', byAddress.text);
  const attachedId = /^Lot (\S+) attached as a context lot\.$/.exec(byAddress.text)?.[1];
  assert.ok(attachedId && attachedId !== '97-120', byAddress.text);
  assert.deepEqual(await lotsOf(projectId), ['97-120 build', `${attachedId} context`].sort());
  // An address that names no lot.
  const nowhere = await send('/lots', { address: '999 Nowhere Rd, Cambridge, MA', role: 'build' });
  assert.equal(nowhere.kind, 'error');
  assert.match(nowhere.text, /^No lot was found at “999 Nowhere Rd, Cambridge, MA”: .* Nothing was attached\.$/);
  // The build lot as context: refused, never a silent demotion.
  const demote = await send('/lots', { parcelExternalId: '97-120', role: 'context' });
  assert.equal(demote.kind, 'error');
  assert.match(demote.text, /^Lot 97-120 is this project's build lot, so it cannot also be a context lot\./);
  // An unknown lot, and a radius out of range.
  const unknown = await send('/lots', { parcelExternalId: 'no-such-lot', role: 'context' });
  assert.match(unknown.text, /^No lot no-such-lot is known in this project's city\. Check the lot id, or click the lot on the map\. Nothing was attached\.$/);
  const radius = await send('/lots', { parcelExternalId: attachedId!, role: 'build', radiusM: '99999' });
  assert.match(radius.text, /^The search radius must be a whole number of metres from 1 to 5,000\./);
  // Promote the context lot to build (a role change), then detach the first build lot (another remains).
  assert.equal((await send('/lots', { parcelExternalId: attachedId!, role: 'build' })).text, `Lot ${attachedId} is now a build lot (it was a context lot).`);
  assert.equal((await send('/lots/detach', { parcelExternalId: '97-120' })).text, 'Lot 97-120 detached (it was a build lot).');
  assert.deepEqual(await lotsOf(projectId), [`${attachedId} build`]);
  const notAttached = await send('/lots/detach', { parcelExternalId: '97-120' });
  assert.equal(notAttached.kind, 'error');
  assert.match(notAttached.text, /^Lot 97-120 is not attached to this project/);

  // A name too long; a lifecycle status not in the list; nothing changed.
  const long = await send('/details', { name: 'N'.repeat(201), lifecycleStatus: 'prospect', externalRef: '' });
  assert.deepEqual(long, { kind: 'error', text: 'The name is longer than 200 characters; shorten it. Nothing was changed.' });
  const status = await send('/details', { name: 'Forms Acorn', lifecycleStatus: 'sold', externalRef: '' });
  assert.equal(status.kind, 'error');
  assert.match(status.text, /^Choose the lifecycle status from the list \(Prospect, Due diligence, .*Abandoned\)\. Nothing was changed\.$/);
  const same = await send('/details', { name: 'Forms Acorn', lifecycleStatus: 'prospect', externalRef: '' });
  assert.deepEqual(same, { kind: 'ok', text: 'Nothing changed: every field already had the value given.' });

  // The same external reference as another of this account's projects: refused, naming that project.
  const other = await postForm(`${svc.url}/projects`, jar, { csrf, name: 'Forms Other', address: '11 Acorn St, Cambridge, MA' });
  await postForm(`${svc.url}${other.location}/details`, jar, { csrf, name: 'Forms Other', lifecycleStatus: 'prospect', externalRef: 'crm:77' });
  const clash = await send('/details', { name: 'Forms Acorn', lifecycleStatus: 'prospect', externalRef: 'crm:77' });
  assert.deepEqual(clash, {
    kind: 'error',
    text: 'The external reference is already used by your project “Forms Other”; each of your projects needs its own. Clear it on that project first, or use another. Nothing was changed.',
  });

  // A stale undo: rename twice, then undo the first rename.
  await send('/details', { name: 'Forms One', lifecycleStatus: 'prospect', externalRef: '' });
  await send('/details', { name: 'Forms Two', lifecycleStatus: 'prospect', externalRef: '' });
  const receipts = await svc.ctx.db.query<{ receipt_id: string }>(
    `SELECT receipt_id::text AS receipt_id FROM receipts WHERE project_id = $1 AND tool = 'project.update' ORDER BY seq`,
    [projectId],
  );
  const stale = await send('/undo', { receiptId: receipts[0]!.receipt_id });
  assert.deepEqual(stale, {
    kind: 'error',
    text: 'That change cannot be undone: the name was changed again since, and undoing it would overwrite the later change. Undo the later change first, or set the field in Project details. Nothing was changed.',
  });
  assert.equal((await context(projectId)).project.name, 'Forms Two');

  // The history says what was done, never which tool.
  const pageBody = (await getPage(`${svc.url}${path}`, jar)).body;
  const history = visible(pageBody.slice(pageBody.indexOf('id="history"')));
  for (const what of ['Created the project', 'Attached a context lot', 'Changed the role of a lot', 'Detached a build lot', 'Renamed the project'])
    assert.ok(history.includes(what), `history: ${what}`);
  assert.doesNotMatch(history, TOOL_NAMES);

  // Another account: no page, no change.
  const stranger = await signUpOrIn(svc.url, 'editor-stranger@example.com');
  const strangerCsrf = csrfFrom((await getPage(`${svc.url}/projects`, stranger)).body);
  for (const [action, fields] of [
    ['/details', { name: 'Taken' }],
    ['/lots', { parcelExternalId: '97-120', role: 'build' }],
    ['/lots/detach', { parcelExternalId: attachedId! }],
  ] as const) {
    const r = await postForm(`${svc.url}${path}${action}`, stranger, { csrf: strangerCsrf, ...fields });
    assert.equal(r.status, 404, action);
    assert.match(r.body, /No project of yours has this address/);
  }
  assert.equal((await context(projectId)).project.name, 'Forms Two');
  assert.deepEqual(await lotsOf(projectId), [`${attachedId} build`]);
});
