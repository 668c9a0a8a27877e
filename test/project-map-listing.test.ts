// setProjectMapListing end to end over the official MCP SDK client with real user tokens: listing
// the caller's projects, the refusal without a build lot, preview (the exact pin, writes nothing),
// the human's form on 2026-07-28 (decline lists nothing, accept lists), the honest 2025-leg answer,
// unlisting; the public JSON endpoint's exact fields; the project page's map and web confirmation;
// and the public /map page in headless Chromium.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { csrfFrom, getPage, getUserToken, postForm, signUpOrIn } from './support/auth-flow.ts';
import { pointInMultiPolygon, type MultiPolygonCoords } from '../src/core/geo/primitives.ts';
import { executeRun, workerOptions } from '../src/analysis/analysis-workers.ts';
import { claimRun } from '../src/analysis/run-queue.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OWNER = 'lister-a@example.com';

let svc: TestServer;
let tokenA: string;
let tokenB: string;
before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], analysisWorkers: { concurrency: 0 } });
  tokenA = await getUserToken(svc.url, OWNER);
  tokenB = await getUserToken(svc.url, 'lister-b@example.com');
});
after(async () => {
  await svc?.close();
});

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
type FormAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean> };
const text = (r: Result) => r.content.map((c) => c.text).join('\n');
const ok = (r: Result) => {
  assert.notEqual(r.isError, true, text(r));
  return r.structuredContent;
};
async function call(c: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await c.callTool({ name, arguments: args })) as Result;
}

/** A 2026-07-28 client that answers forms from a script and records every form it was shown. */
async function formClient(token: string, answers: FormAnswer[]): Promise<{ client: Client; asked: { message: string; schema: any }[] }> {
  const asked: { message: string; schema: any }[] = [];
  const client = new Client(
    { name: 'listing-test', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    const p = req.params as unknown as { message: string; requestedSchema: unknown };
    asked.push({ message: p.message, schema: p.requestedSchema });
    const next = answers.shift();
    assert.ok(next, 'the server asked for more forms than the test scripted');
    return next;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, asked };
}

async function counts() {
  const [row] = await svc.ctx.db.query<{ l: number; listed: number; r: number }>(
    `SELECT (SELECT count(*)::int FROM project_map_listings) AS l, (SELECT count(*)::int FROM project_map_listings WHERE listed) AS listed, (SELECT count(*)::int FROM receipts) AS r`,
  );
  return row!;
}

async function publicJson(): Promise<{ raw: string; body: any }> {
  const res = await fetch(`${svc.url}/api/public/listings`);
  assert.equal(res.status, 200);
  const raw = await res.text();
  return { raw, body: JSON.parse(raw) };
}

/** The test's own area-weighted centroid of a lot's polygon (shoelace), to 6 decimals. */
function centroidOf(mp: MultiPolygonCoords): { lat: number; lng: number } {
  let a = 0,
    cx = 0,
    cy = 0;
  const [ox, oy] = mp[0]![0]![0]!;
  for (const poly of mp)
    poly.forEach((ring, i) => {
      let ra = 0,
        rx = 0,
        ry = 0;
      for (let k = 0; k + 1 < ring.length; k++) {
        const x0 = ring[k]![0] - ox,
          y0 = ring[k]![1] - oy;
        const x1 = ring[k + 1]![0] - ox,
          y1 = ring[k + 1]![1] - oy;
        const c = x0 * y1 - x1 * y0;
        ra += c;
        rx += (x0 + x1) * c;
        ry += (y0 + y1) * c;
      }
      const s = (i === 0 ? 1 : -1) * (Math.sign(ra) || 1);
      a += s * ra;
      cx += s * rx;
      cy += s * ry;
    });
  return { lat: Math.round((oy + cy / (3 * a)) * 1e6) / 1e6, lng: Math.round((ox + cx / (3 * a)) * 1e6) / 1e6 };
}

async function lotGeom(id: string): Promise<MultiPolygonCoords> {
  const [r] = await svc.ctx.db.query<{ geom: unknown }>('SELECT geom FROM parcels WHERE parcel_ext_id = $1', [id]);
  return (typeof r!.geom === 'string' ? JSON.parse(r!.geom) : r!.geom) as MultiPolygonCoords;
}

let listedProjectId = '';

test('listing flow over MCP: list, refusal without a build lot, preview, form (decline, accept), 2025 leg, unlist', async () => {
  const legacy = await connectClient(svc.url, 'legacy', tokenA);
  const { client: modern, asked } = await formClient(tokenA, [
    { action: 'decline' },
    { action: 'accept', content: { confirm: true } },
    { action: 'accept', content: { confirm: true } },
  ]);
  try {
    const created = ok(
      await call(legacy, 'saveToProject', {
        action: 'create',
        name: 'Acorn Listing',
        address: '11 Acorn St, Cambridge, MA',
        externalRef: 'crm:secret-77',
        preview: false,
      }),
    );
    const projectId: string = created.project.projectId;
    listedProjectId = projectId;
    assert.deepEqual(
      created.lots.map((l: any) => [l.parcelExternalId, l.role]),
      [['97-120', 'build']],
    );

    // Neither id nor name: the caller's projects, nothing published.
    let before0 = await counts();
    for (const c of [legacy, modern]) {
      const listed = ok(await call(c, 'setProjectMapListing', { listed: true, preview: false }));
      assert.equal(listed.action, 'listed');
      assert.ok(listed.projects.some((p: any) => p.projectId === projectId));
    }
    assert.deepEqual(await counts(), before0);

    // Another account cannot touch it.
    const b = await connectClient(svc.url, 'legacy', tokenB);
    try {
      const r = await call(b, 'setProjectMapListing', { projectId, listed: true, preview: true });
      assert.equal(r.isError, true);
    } finally {
      await b.close();
    }

    // A project with no build lot cannot be pinned: remove the lot the create attached (the DB is the only way to get such a project today).
    const bare = ok(await call(legacy, 'saveToProject', { action: 'create', name: 'Address Only', address: '11 Acorn St, Cambridge, MA', preview: false }));
    await svc.ctx.db.query('DELETE FROM project_lots WHERE project_id = $1', [bare.project.projectId]);
    before0 = await counts();
    for (const c of [legacy, modern]) {
      const r = await call(c, 'setProjectMapListing', { projectId: bare.project.projectId, listed: true, preview: false });
      assert.equal(r.isError, true);
      assert.match(text(r), /no build lot.*attach_parcels/s);
    }
    assert.deepEqual(await counts(), before0);
    assert.equal(asked.length, 0, 'a project without a build lot is refused before the human is asked');

    // Preview: the exact pin (the build lot's centroid), the warnings; writes nothing.
    const pv = ok(await call(legacy, 'setProjectMapListing', { projectId, listed: true, preview: true }));
    const geom = await lotGeom('97-120');
    assert.deepEqual(pv.pin, centroidOf(geom));
    assert.ok(pointInMultiPolygon([pv.pin.lng, pv.pin.lat], geom), 'the pin is on the lot');
    assert.deepEqual(Object.keys(pv.wouldShow).sort(), ['lifecycleStatus', 'name', 'pin', 'typology', 'zoneCategory']);
    assert.equal(pv.wouldShow.zoneCategory, 'residential');
    assert.equal(pv.wouldShow.typology, 'unknown', 'no analysis has run');
    assert.equal(pv.listing.listed, false);
    assert.equal(pv.needsHumanConfirmation, true);
    assert.ok(pv.warnings.some((w: string) => /centroid/.test(w)));
    assert.deepEqual(await counts(), before0, 'preview wrote nothing');

    // 2025 leg: no form possible; says so, points to the web page, lists nothing.
    const old = await call(legacy, 'setProjectMapListing', { projectId, listed: true, preview: false });
    assert.equal(old.isError, true);
    assert.match(text(old), /cannot show them a form/);
    assert.equal(old.structuredContent.error.code, 'elicitation_unavailable');
    assert.equal(old.structuredContent.confirmUrl, `${svc.ctx.config.baseUrl}/projects/${projectId}`);
    assert.deepEqual(await counts(), before0);

    // 2026-07-28: the human declines -> nothing listed.
    const declined = ok(await call(modern, 'setProjectMapListing', { projectId, listed: true, preview: false }));
    assert.equal(declined.written, false);
    assert.equal(declined.action, 'declined');
    assert.deepEqual(await counts(), before0);
    assert.equal((await publicJson()).body.count, 0);

    // ... accepts -> listed, with a receipt.
    const accepted = ok(await call(modern, 'setProjectMapListing', { projectId, listed: true, preview: false }));
    assert.equal(asked.length, 2, 'one form per attempt');
    assert.match(asked[1]!.message, new RegExp(`${pv.pin.lat}, ${pv.pin.lng}`));
    assert.deepEqual(asked[1]!.schema.required, ['confirm']);
    assert.equal(accepted.written, true);
    assert.equal(accepted.receipt.operation, 'project.map_listing');
    assert.equal(accepted.receipt.action, 'list');
    assert.equal(accepted.receipt.projectId, projectId);
    assert.equal(accepted.listing.listed, true);
    assert.deepEqual(accepted.listing.pin, pv.pin);
    const afterList = await counts();
    assert.deepEqual([afterList.listed, afterList.r], [1, before0.r + 1]);

    // Listing again changes nothing and makes no receipt.
    const again = ok(await call(legacy, 'setProjectMapListing', { projectId, listed: true, preview: false }));
    assert.equal(again.written, false);
    assert.equal((await counts()).r, afterList.r);

    // The public endpoint: exactly the allowed fields.
    const pub = await publicJson();
    assert.deepEqual(Object.keys(pub.body).sort(), ['count', 'listings']);
    assert.equal(pub.body.count, 1);
    for (const l of pub.body.listings) {
      assert.deepEqual(Object.keys(l).sort(), ['lifecycleStatus', 'name', 'pin', 'typology', 'zoneCategory']);
      assert.deepEqual(Object.keys(l.pin).sort(), ['lat', 'lng']);
    }
    assert.deepEqual(pub.body.listings[0], {
      name: 'Acorn Listing',
      zoneCategory: 'residential',
      typology: 'unknown',
      lifecycleStatus: 'prospect',
      pin: pv.pin,
    });
    for (const secret of ['Acorn St', 'crm:secret-77', projectId, OWNER, 'lister', '97-120', 'owner', 'account'])
      assert.ok(!pub.raw.includes(secret), `the public endpoint leaks ${secret}`);

    // Unlist (2025 leg: no form needed): the pin goes, the answer says what was public stays shared.
    const un = ok(await call(legacy, 'setProjectMapListing', { projectId, listed: false, preview: false }));
    assert.equal(un.written, true);
    assert.equal(un.receipt.action, 'unlist');
    assert.match(un.note, /not un-shared/);
    assert.equal(un.listing.listed, false);
    assert.equal((await publicJson()).body.count, 0);
    const unAgain = ok(await call(legacy, 'setProjectMapListing', { projectId, listed: false, preview: false }));
    assert.equal(unAgain.written, false);

    // Listing again after an unlisting asks the human again, as the first listing did (issue 25).
    const pv2 = ok(await call(legacy, 'setProjectMapListing', { projectId, listed: true, preview: true }));
    assert.equal(pv2.alreadyPublicKnowledge, true);
    assert.equal(pv2.needsHumanConfirmation, true);
    const beforeRelist = await counts();
    const noForm = await call(legacy, 'setProjectMapListing', { projectId, listed: true, preview: false });
    assert.equal(noForm.isError, true, 'the 2025 leg cannot relist without the human');
    assert.equal(noForm.structuredContent.error.code, 'elicitation_unavailable');
    assert.deepEqual(await counts(), beforeRelist);
    assert.equal((await publicJson()).body.count, 0);
    const relist = ok(await call(modern, 'setProjectMapListing', { projectId, listed: true, preview: false }));
    assert.equal(asked.length, 3, 'the human was asked again');
    assert.equal(relist.written, true);
    assert.equal((await publicJson()).body.count, 1);
  } finally {
    await legacy.close();
    await modern.close();
  }
});

test('project page: the build and context lots on a map, the listing state, and list / unlist through the CSRF form', async () => {
  const token = await getUserToken(svc.url, 'web-lister@example.com');
  const jar = await signUpOrIn(svc.url, 'web-lister@example.com');
  const c = await connectClient(svc.url, 'modern', token);
  let projectId: string;
  try {
    const created = ok(await call(c, 'saveToProject', { action: 'create', name: 'Web Listing', address: '11 Acorn St, Cambridge, MA', preview: false }));
    projectId = created.project.projectId;
    ok(await call(c, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-127'], role: 'context', preview: false }));
  } finally {
    await c.close();
  }
  const pageRes = await getPage(`${svc.url}/projects/${projectId}`, jar);
  assert.equal(pageRes.status, 200);
  const view = JSON.parse(
    /data-map-view="([^"]*)"/
      .exec(pageRes.body)![1]!
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>'),
  );
  const roles = view.style.sources.lots.data.features.map((f: any) => [f.properties.lot, f.properties.role]).sort();
  assert.deepEqual(roles, [
    ['97-120', 'build'],
    ['97-127', 'context'],
  ]);
  assert.match(pageRes.body, /id="listing-state">Not listed\./);
  assert.match(pageRes.body, /name="confirm" value="yes"/);

  const before0 = await counts();
  const noTick = await postForm(`${svc.url}/projects/${projectId}/listing`, jar, { csrf: csrfFrom(pageRes.body), listed: 'true' });
  assert.equal(noTick.status, 303);
  // The refusal is said once on the page the form returns to (a one-time message, not in the URL).
  assert.match((await getPage(`${svc.url}${noTick.location}`, jar)).body, /Tick the confirmation box/);
  const badCsrf = await postForm(`${svc.url}/projects/${projectId}/listing`, jar, { csrf: 'forged', listed: 'true', confirm: 'yes' });
  assert.equal(badCsrf.status, 403);
  assert.deepEqual(await counts(), before0, 'nothing listed without the tick or with a bad CSRF token');

  const listed = await postForm(`${svc.url}/projects/${projectId}/listing`, jar, { csrf: csrfFrom(pageRes.body), listed: 'true', confirm: 'yes' });
  assert.equal(listed.status, 303);
  const after = await getPage(`${svc.url}${listed.location}`, jar);
  assert.match(after.body, /Listed on the public map\./);
  assert.match(after.body, /id="listing-state">Listed on the <a href="\/map">public map<\/a>/);
  assert.ok((await publicJson()).body.listings.some((l: any) => l.name === 'Web Listing'));

  const stranger = await signUpOrIn(svc.url, 'web-stranger-l@example.com');
  const foreign = await postForm(`${svc.url}/projects/${projectId}/listing`, stranger, {
    csrf: csrfFrom((await getPage(`${svc.url}/account`, stranger)).body),
    listed: 'false',
  });
  assert.equal(foreign.status, 404, 'another account cannot unlist it');

  const un = await postForm(`${svc.url}/projects/${projectId}/listing`, jar, { csrf: csrfFrom(after.body), listed: 'false' });
  assert.match((await getPage(`${svc.url}${un.location}`, jar)).body, /not un-shared/);
  assert.ok(!(await publicJson()).body.listings.some((l: any) => l.name === 'Web Listing'));
});

test('/map renders signed out in headless Chromium: the pins drawn, the table of allowed fields, no console errors', {
  skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  assert.ok(listedProjectId, 'the MCP test listed a project');
  const html = await (await fetch(`${svc.url}/map`)).text();
  assert.ok(html.includes('<td>Acorn Listing</td>'), 'the table names the listed project');
  assert.ok(!/Acorn St|crm:secret-77/.test(html), 'no address or external reference on the page');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(`${svc.url}/map`);
    await page.waitForSelector('[data-map-view][data-state=ready]', { timeout: 60_000 });
    const drawn = await page.evaluate(() => {
      const m = (
        window as unknown as { sitelineMaps: { getCanvas(): HTMLCanvasElement; queryRenderedFeatures(o: object): { properties: Record<string, unknown> }[] }[] }
      ).sitelineMaps[0]!;
      const canvas = m.getCanvas();
      const off = document.createElement('canvas');
      off.width = canvas.width;
      off.height = canvas.height;
      const g = off.getContext('2d')!;
      g.drawImage(canvas, 0, 0);
      const data = g.getImageData(0, 0, off.width, off.height).data;
      let pin = 0;
      // The pin colour #d93025 (217, 48, 37), with a little tolerance for antialiasing.
      for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i]! - 217) < 14 && Math.abs(data[i + 1]! - 48) < 14 && Math.abs(data[i + 2]! - 37) < 14) pin++;
      return {
        pin,
        names: m.queryRenderedFeatures({ layers: ['listings-pin'] }).map((f) => [String(f.properties.name), Object.keys(f.properties).sort().join(',')]),
      };
    });
    assert.ok(drawn.pin > 20, `the pin is drawn (${drawn.pin} pixels)`);
    assert.deepEqual(drawn.names, [['Acorn Listing', 'lifecycleStatus,name,typology,zoneCategory']]);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('typology: a commercial zone names itself; otherwise the latest succeeded analysis: no unit count -> unknown, 1 unit -> single_family, 2+ -> multi_family', async () => {
  // The shipped Cambridge rules state no unit limit in C-1 (every analysis there gives no unit count), so
  // this test serves a copy of the place whose C-1 names a lot area per unit chosen from the two lots'
  // own areas: one lot then holds exactly one unit and the other at least two.
  const placesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-typology-'));
  fs.cpSync(path.join(ROOT, 'places', 'cambridge-ma'), path.join(placesDir, 'cambridge-ma'), { recursive: true });
  const typed = await startTestServer({ places: ['cambridge-ma'], analysisWorkers: { concurrency: 0 }, config: { placesDir } });
  const c = await connectClient(typed.url, 'legacy', await getUserToken(typed.url, 'typology@example.com'));
  const worker = workerOptions(typed.ctx.config, { concurrency: 1 });
  // One queued run, executed by the real worker step (claim -> execute -> store), awaited.
  const analyse = async (projectId: string) => {
    ok(await call(c, 'runFeasibilityAnalysis', { projectId }));
    const run = await claimRun(typed.ctx, worker.workerId, 30_000);
    assert.ok(run, 'the run was queued');
    await executeRun(typed.ctx, run, worker);
    const [row] = await typed.ctx.db.query<{ status: string; result: string | null }>(`SELECT status, result FROM analysis_runs WHERE run_id = $1`, [
      run.run_id,
    ]);
    assert.equal(row!.status, 'succeeded');
    const result = JSON.parse(row!.result!);
    return { units: result.derived.maxDwellingUnits?.value as number | null, areaSqft: result.combinedLotArea.value as number };
  };
  const typology = async (projectId: string) => ok(await call(c, 'setProjectMapListing', { projectId, listed: true, preview: true })).wouldShow.typology;
  try {
    const sites = [];
    for (const address of ['11 Acorn St, Cambridge, MA', '11 Allen St, Cambridge, MA']) {
      const p = ok(await call(c, 'saveToProject', { action: 'create', name: `Typology ${address}`, address, preview: false }));
      const projectId = p.project.projectId as string;
      assert.equal(await typology(projectId), 'unknown', 'no analysis yet');
      const first = await analyse(projectId);
      assert.equal(first.units, null, 'the shipped C-1 rules give no unit count');
      assert.equal(await typology(projectId), 'unknown', 'an analysis without a unit count');
      sites.push({ projectId, areaSqft: first.areaSqft });
    }
    sites.sort((a, b) => a.areaSqft - b.areaSqft);
    const [small, large] = sites as [(typeof sites)[0], (typeof sites)[0]];
    assert.ok(large.areaSqft > small.areaSqft * 1.01, `the two lots differ in area (${small.areaSqft}, ${large.areaSqft} sq ft)`);
    // small / perUnit is in [1.01, 2): one unit; large / perUnit >= 2.01: two or more.
    const perUnit = Math.min(small.areaSqft / 1.01, large.areaSqft / 2.01);
    const file = path.join(placesDir, 'cambridge-ma', 'rules.json');
    const rules = JSON.parse(fs.readFileSync(file, 'utf8'));
    const note = 'test value';
    Object.assign(rules.districts['C-1'].standards, {
      minLotAreaPerUnitSqft: { status: 'unverified_default', value: perUnit, note: `${note}: a lot area per unit between the two test lots` },
      // The other two unit terms do not bind (unknown terms would leave the count unknown).
      maxDensityUnitsPerAcre: { status: 'unverified_default', value: 1_000_000, note },
      maxUnitsPerLot: { status: 'unverified_default', value: 1_000, note },
    });
    fs.writeFileSync(file, JSON.stringify(rules));
    typed.ctx.caches.rulesReloaded();
    assert.equal((await analyse(small.projectId)).units, 1);
    assert.equal(await typology(small.projectId), 'single_family');
    const many = (await analyse(large.projectId)).units;
    assert.ok(many !== null && many >= 2, `the larger lot holds ${many} units`);
    assert.equal(await typology(large.projectId), 'multi_family');
    // The other branch: a commercial zone names the typology itself, with or without an analysis.
    const shop = ok(await call(c, 'saveToProject', { action: 'create', name: 'Typology shop', address: '2 Arrow St, Cambridge, MA', preview: false }));
    const shopView = ok(await call(c, 'setProjectMapListing', { projectId: shop.project.projectId, listed: true, preview: true })).wouldShow;
    assert.deepEqual([shopView.zoneCategory, shopView.typology], ['commercial', 'commercial']);
  } finally {
    await c.close();
    await typed.close();
    fs.rmSync(placesDir, { recursive: true, force: true });
  }
});
