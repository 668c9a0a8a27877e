// cityInventory, previewSiteCoverage and the LOCATION limit they share with /api/geo/coverage-status,
// over the real Cambridge import, through the official client and plain fetch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/clock.ts';
import { startService } from '../src/service.ts';
import { createLogger } from '../src/logger.ts';
import { loadAllManifests, PLACES_DIR } from '../src/places/manifest.ts';
import { upsertPlaceFromManifest } from '../src/places/catalogue.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import type { Client } from '@modelcontextprotocol/client';

// Mid-window start so a test's requests never straddle a window boundary by accident.
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 5));
let svc: TestServer;
let client: Client;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], clock });
  client = await connectClient(svc.url, 'modern');
});
after(async () => {
  await client?.close();
  await svc?.close();
});

async function inventory(args: Record<string, unknown>) {
  const r = await client.callTool({ name: 'cityInventory', arguments: args });
  return { isError: r.isError === true, s: r.structuredContent as any, text: (r.content as { text: string }[])[0]!.text };
}

test('cityInventory by name, by geoDivisionId and by point: the grouped inventory of Cambridge', async () => {
  clock.advance(60_000);
  const byName = await inventory({ city: 'Cambridge', region: 'MA' });
  assert.equal(byName.isError, false, byName.text);
  const s = byName.s;
  assert.equal(s.kind, 'inventory');
  assert.equal(s.place.geoDivisionId, 'US-MA:cambridge');
  assert.equal(s.place.status, 'live');
  assert.ok(s.layers.lots.some((l: { layer: string; features: number }) => l.layer === 'parcels' && l.features > 1000));
  assert.ok(s.layers.zoning.some((l: { layer: string }) => l.layer === 'zoning'));
  for (const group of Object.values(s.layers) as { licence: string; vintage: string }[][]) {
    for (const l of group) assert.ok(l.licence && l.vintage, 'each layer states licence and vintage');
  }
  assert.ok(s.zoning.baseDistricts > 10);
  assert.ok(s.zoning.districts.length <= 60);
  assert.ok(s.zoning.districts.every((d: { rulesCovered: boolean }) => typeof d.rulesCovered === 'boolean'));
  assert.ok(s.rules.bylaw.name.includes('Cambridge'));
  // Cambridge's rules hold no value read from the ordinance itself (RULES-FACTS): nothing may count as cited.
  assert.equal(s.rules.standardStatuses.cited ?? 0, 0);
  assert.ok(s.rules.standardStatuses.unverified_default > 0);
  assert.ok(s.licences.length >= 1);
  assert.equal(typeof s.vintage.oldest, 'string');
  assert.notEqual(s.vintage.oldest, s.vintage.newest, 'the layers span several vintages');

  const byId = await inventory({ geoDivisionId: 'US-MA:cambridge' });
  assert.deepEqual(byId.s, s);
  const byPoint = await inventory({ lat: 42.3736, lng: -71.1097 });
  assert.equal(byPoint.s.place.geoDivisionId, 'US-MA:cambridge');
  const offshore = await inventory({ lat: 42.3, lng: -70.5 });
  assert.equal(offshore.s.kind, 'unmapped');
  assert.equal(offshore.s.eligibilityKnown, false);
});

test('cityInventory refuses slugs and malformed queries with a sentence, without spending the limit', async () => {
  clock.advance(60_000);
  for (const args of [{ city: 'cambridge-ma' }, { geoDivisionId: 'cambridge-ma' }]) {
    const r = await inventory(args);
    assert.equal(r.isError, true);
    assert.match(r.text, /slug/);
    assert.match(r.text, /US-MA:cambridge/);
  }
  assert.equal((await inventory({})).isError, true);
  assert.equal((await inventory({ city: 'Cambridge', lat: 42.37, lng: -71.1 })).isError, true);
  assert.equal((await inventory({ lat: 42.37 })).isError, true);
  // One spelling of a point (issue 25): another one is refused by name, not dropped.
  for (const [args, right] of [
    [{ latitude: 42.3736, longitude: -71.1097 }, /"latitude" is spelled "lat".*"longitude" is spelled "lng"/],
    [{ lat: 42.3736, lon: -71.1097 }, /"lon" is spelled "lng"/],
  ] as const) {
    const wrong = await inventory(args);
    assert.equal(wrong.isError, true);
    assert.match(wrong.text, right);
  }
  assert.equal((await inventory({ city: 'Cambridge', region: 'Atlantis' })).isError, true);
  const status = await fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge&region=MA`);
  assert.equal(status.headers.get('ratelimit-remaining'), '29', 'refused queries did not count');
});

test('cityInventory: a known city without data points to recording demand and records nothing; an unknown name says so', async () => {
  clock.advance(60_000);
  const countTables = async () => (await svc.ctx.db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM places')).at(0)!.n;
  const before = await countTables();
  const springfield = await inventory({ city: 'Springfield', region: 'IL' });
  assert.equal(springfield.s.kind, 'unmapped');
  assert.equal(springfield.s.status, 'unseeded_place');
  assert.deepEqual(springfield.s.knownCity, { name: 'Springfield', region: 'IL', country: 'US' });
  assert.match(springfield.s.recordDemand, /records nothing/);
  // "Springfield" alone was read as Springfield, MO: now the candidates, each with an id to pass back
  const several = await inventory({ city: 'Springfield' });
  assert.equal(several.s.kind, 'candidates');
  const ids = several.s.candidates.map((c: { geoDivisionId: string }) => c.geoDivisionId);
  assert.ok(ids.includes('US-MO:springfield') && ids.includes('US-IL:springfield') && ids.includes('US-MA:springfield'), JSON.stringify(ids));
  const picked = await inventory({ geoDivisionId: 'US-IL:springfield' });
  assert.equal(picked.s.kind, 'unmapped');
  assert.deepEqual(picked.s.knownCity, { name: 'Springfield', region: 'IL', country: 'US' });
  const unknown = await inventory({ city: 'Qwertyville' });
  assert.equal(unknown.s.status, 'geo_division_uncatalogued');
  assert.equal(unknown.s.knownCity, null);
  assert.equal(await countTables(), before, 'nothing was recorded');
});

test('cityInventory: several matches -> candidates with geoDivisionId; the caller picks one and calls again', async () => {
  clock.advance(60_000);
  // Cambridge, Ontario enters the catalogue as a planned place, through the importer's own upsert.
  const ma = loadAllManifests(PLACES_DIR).find((m) => m.slug === 'cambridge-ma')!;
  await upsertPlaceFromManifest(svc.ctx, {
    ...ma,
    geoDivisionId: 'CA-ON:cambridge',
    slug: 'cambridge-on',
    region: 'ON',
    country: 'CA',
    status: 'planned_not_live',
    aliases: [],
  });
  try {
    const r = await inventory({ city: 'Cambridge' });
    assert.equal(r.s.kind, 'candidates');
    // the catalogued places, and the Cambridges the service knows without data (one rule for ambiguity)
    const ids = r.s.candidates.map((c: { geoDivisionId: string }) => c.geoDivisionId);
    assert.ok(ids.includes('CA-ON:cambridge') && ids.includes('US-MA:cambridge'), JSON.stringify(ids));
    assert.ok(
      r.s.candidates
        .filter((c: { geoDivisionId: string }) => !['CA-ON:cambridge', 'US-MA:cambridge'].includes(c.geoDivisionId))
        .every((c: { status: string }) => c.status === 'unseeded_place'),
    );
    assert.match(r.text, /geoDivisionId/);
    const picked = await inventory({ geoDivisionId: 'CA-ON:cambridge' });
    assert.equal(picked.s.kind, 'inventory');
    assert.equal(picked.s.place.status, 'planned_not_live');
    // The first block says the place is not live and why, as the coverage page does (issue 47).
    assert.match(picked.text, /^Cambridge, ON \(CA-ON:cambridge\) is planned, not live \(planned_not_live\): \S/);
    assert.ok(picked.text.includes(picked.s.place.statusReason ?? 'The place is catalogued and planned, but not live'), picked.text);
    const probe = (await (await fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge`)).json()) as any;
    assert.equal(probe.status, 'ambiguous');
    assert.equal(probe.candidates.length, r.s.candidates.length);
  } finally {
    await svc.ctx.db.query("DELETE FROM places WHERE place_id = 'CA-ON:cambridge'");
  }
});

test('previewSiteCoverage: covered with lot and zone, uncovered with the reason, and never a zoning value', async () => {
  const covered = await client.callTool({ name: 'previewSiteCoverage', arguments: { address: '57 Inman St, Cambridge, MA' } });
  const c = covered.structuredContent as any;
  assert.equal(c.covered, true);
  assert.equal(c.lotFound, true);
  assert.equal(c.zoneFound, true);
  assert.equal(c.coverage.status, 'live');
  const wire = JSON.stringify(covered);
  for (const key of ['envelope', 'lot', 'zones', 'permittedUses']) assert.equal(key in c, false, `no ${key} in a preview`);
  for (const leak of ['"parcelExternalId"', '"latitude"', '"maxHeight', '"maxFar"', '"permission"']) assert.ok(!wire.includes(leak), `no ${leak} in a preview`);
  const outside = await client.callTool({ name: 'previewSiteCoverage', arguments: { address: '1 Main St, Springfield, IL' } });
  assert.equal((outside.structuredContent as any).covered, false);
  assert.equal((outside.structuredContent as any).coverage.status, 'unseeded_place');
  const empty = await client.callTool({ name: 'previewSiteCoverage', arguments: { address: '' } });
  assert.equal(empty.isError, true);
});

test('the LOCATION limit: 30 per minute per IP shared by cityInventory and /api/geo/coverage-status, 429 + Retry-After, isError with the wait', async () => {
  clock.advance(60_000);
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${svc.url}/api/geo/coverage-status?lat=42.3736&lng=-71.1097`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('ratelimit-remaining'), String(29 - i));
    assert.equal(r.headers.get('ratelimit-limit'), '30');
    assert.equal(r.headers.get('ratelimit-policy'), '30;w=60');
  }
  for (let i = 0; i < 10; i++) assert.equal((await inventory({ geoDivisionId: 'US-MA:cambridge' })).isError, false);
  const limited = await fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge&region=MA`);
  assert.equal(limited.status, 429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 60);
  assert.equal(limited.headers.get('ratelimit-remaining'), '0');
  const body = (await limited.json()) as { error: { code: string; message: string; requestId: string } };
  assert.equal(body.error.code, 'rate_limited');
  assert.match(body.error.message, new RegExp(`Wait ${retryAfter} seconds`));
  const tool = await inventory({ city: 'Cambridge', region: 'MA' });
  assert.equal(tool.isError, true);
  assert.match(tool.text, /30 per 60 seconds/);
  assert.equal(tool.s.error.code, 'rate_limited');
  assert.equal(tool.s.error.retryAfterSeconds, retryAfter);
  // Other tools are not under the LOCATION limit.
  assert.notEqual((await client.callTool({ name: 'explainFeasibilityStatus', arguments: { status: 'cited' } })).isError, true);
  clock.advance(retryAfter * 1000);
  const again = await fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge&region=MA`);
  assert.equal(again.status, 200, 'a new window opens after the wait');
});

test('the LOCATION limit lives in the database: a second instance on the same database sees the same budget', async () => {
  clock.advance(60_000);
  const second = await startService(
    { ...svc.ctx.config, port: 0, host: '127.0.0.1' },
    { db: svc.ctx.db, clock, logger: createLogger('silent'), skipAutoImport: true },
  );
  try {
    for (let i = 0; i < 15; i++) assert.equal((await fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge&region=MA`)).status, 200);
    for (let i = 0; i < 15; i++) assert.equal((await fetch(`${second.url}/api/geo/coverage-status?city=Cambridge&region=MA`)).status, 200);
    assert.equal((await fetch(`${second.url}/api/geo/coverage-status?city=Cambridge&region=MA`)).status, 429);
    assert.equal((await fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge&region=MA`)).status, 429);
  } finally {
    await second.close(); // the server and its analysis workers; the shared database stays open
  }
});

test('/api/geo/coverage-status: bad queries are 400 with a clear message', async () => {
  clock.advance(60_000);
  for (const q of ['', '?lat=42', '?lat=abc&lng=-71', '?city=cambridge-ma', '?city=Cambridge&lat=1&lng=2', '?lat=200&lng=0']) {
    const r = await fetch(`${svc.url}/api/geo/coverage-status${q}`);
    assert.equal(r.status, 400, q);
    const body = (await r.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'bad_input');
    assert.ok(body.error.message.length > 20);
  }
  // One spelling of a point (issue 25): lat and lng; latitude, longitude and lon are refused by name.
  for (const [q, right] of [
    ['?lat=42.37&lon=-71.11', /"lon" is spelled "lng"/],
    ['?latitude=42.37&longitude=-71.11', /"latitude" is spelled "lat"/],
  ] as const) {
    const r = await fetch(`${svc.url}/api/geo/coverage-status${q}`);
    assert.equal(r.status, 400, q);
    const body = (await r.json()) as { error: { code: string; message: string } };
    assert.match(body.error.message, right);
  }
  const live = (await (await fetch(`${svc.url}/api/geo/coverage-status?geoDivisionId=US-MA:cambridge`)).json()) as any;
  assert.equal(live.status, 'live');
  assert.equal(live.eligibilityKnown, true);
});
