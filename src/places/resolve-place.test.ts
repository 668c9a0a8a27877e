// Place resolution: catalogue first (statuses from the manifests), then the gazetteer, else unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { ensureCatalogue } from '../importer/default-places.ts';
import { resolvePlace, postcodeCountry, candidateLabel } from './resolve-place.ts';
import { listPlaces, getPlace, findPlacesByName } from './catalogue.ts';
import { lookupGazetteer } from './gazetteer.ts';
import { lookupRegion } from './regions.ts';
import { loadConfig } from '../config.ts';
import { Caches } from '../caches.ts';

/** The gazetteer reads the catalogue's manifests of a context's places directory (the repository's here). */
const config = loadConfig({ ...process.env, DATABASE_URL: '' });
const gazetteer = { config, caches: new Caches(config) };

test('catalogue: five places from the manifests, Cambridge and Somerville live_unavailable until imported, the others planned', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    await ensureCatalogue(ctx);
    await ensureCatalogue(ctx); // idempotent
    const places = await listPlaces(ctx);
    assert.deepEqual(places.map((p) => p.geoDivisionId).sort(), ['CA-BC:saanich', 'US-IL:chicago', 'US-MA:cambridge', 'US-MA:somerville', 'US-TX:paradise']);
    // Live by its manifest (parcels, stated districts), not imported into this database.
    assert.equal((await getPlace(ctx, 'US-MA:somerville'))?.status, 'live_unavailable');
    const cam = await getPlace(ctx, 'US-MA:cambridge');
    assert.equal(cam?.status, 'live_unavailable');
    assert.equal(cam?.importedAt, null);
    assert.equal(cam?.rulesFile, 'places/cambridge-ma/rules.json');
    assert.ok(cam?.layers.some((l) => l.layer === 'parcels' && l.licence === 'ODC-PDDL-1.0' && l.features === null));
    assert.equal((await getPlace(ctx, 'CA-BC:saanich'))?.status, 'planned_not_live');
    assert.match((await getPlace(ctx, 'CA-BC:saanich'))?.layers[0]?.attribution ?? '', /Open Government Licence – District of Saanich/);
    assert.equal((await findPlacesByName(ctx, 'city of CAMBRIDGE', 'Massachusetts')).length, 1);
    assert.equal((await findPlacesByName(ctx, 'Cambridge', 'ON')).length, 0);
  } finally {
    await t.close();
  }
});

test('resolvePlace: catalogue, then gazetteer, then unknown with a reason', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    await ensureCatalogue(ctx);
    const q = (city: string | null, region: string | null, country: 'US' | 'CA' | null = null, postcode: string | null = null) =>
      resolvePlace(ctx, { city, region, country, postcode });

    const cam = await q('Cambridge', 'MA');
    assert.equal(cam.kind, 'place');
    assert.equal(cam.kind === 'place' && cam.place.geoDivisionId, 'US-MA:cambridge');
    const sa = await q('Saanich', 'British Columbia', 'CA');
    assert.equal(sa.kind === 'place' && sa.place.status, 'planned_not_live');
    const chi = await q('chicago', 'il');
    assert.equal(chi.kind === 'place' && chi.place.geoDivisionId, 'US-IL:chicago');

    // Known cities without data: the gazetteer.
    const sp = await q('Springfield', 'IL');
    assert.deepEqual(sp, { kind: 'gazetteer', name: 'Springfield', region: 'IL', country: 'US' });
    const on = await q('Cambridge', 'ON');
    assert.deepEqual(on, { kind: 'gazetteer', name: 'Cambridge', region: 'ON', country: 'CA' });
    const mtl = await q('Montreal', 'QC');
    assert.equal(mtl.kind, 'gazetteer');

    // Unknown: a city that is not in that state, a region that does not exist, nothing at all.
    const none = await q('Zzyzxville', 'MA');
    assert.equal(none.kind, 'unknown');
    assert.match(none.kind === 'unknown' ? none.reason : '', /Massachusetts/);
    assert.equal((await q('Cambridge', 'Narnia')).kind, 'unknown');
    assert.equal((await q('Boston', 'BC', 'US')).kind, 'unknown');
    assert.equal((await q(null, null)).kind, 'unknown');

    // A postcode must belong to the region; without a region it supplies one.
    const ak = await q('Cambridge', 'MA', 'US', '99999');
    assert.equal(ak.kind, 'unknown');
    assert.match(ak.kind === 'unknown' ? ak.reason : '', /99999 is not in Massachusetts/);
    assert.equal((await q('Cambridge', 'MA', 'US', '00000')).kind, 'unknown');
    assert.equal((await q('Cambridge', 'MA', null, 'V8X 2W9')).kind, 'unknown');
    const viaZip = await q('Cambridge', null, null, '02139');
    assert.equal(viaZip.kind === 'place' && viaZip.place.geoDivisionId, 'US-MA:cambridge');
    const viaPostal = await q('Saanich', null, null, 'V8X 2W9');
    assert.equal(viaPostal.kind === 'place' && viaPostal.place.geoDivisionId, 'CA-BC:saanich');
  } finally {
    await t.close();
  }
});

// Issue 8 item 5: one rule for ambiguity everywhere, and postal cities that cover several municipalities.
test('resolvePlace: several candidates are returned, never a pick (no state; a postal city)', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    await ensureCatalogue(ctx);
    const q = (city: string | null, region: string | null, country: 'US' | 'CA' | null = null, postcode: string | null = null) =>
      resolvePlace(ctx, { city, region, country, postcode });
    const labels = (r: Awaited<ReturnType<typeof q>>) => (r.kind === 'ambiguous' ? r.candidates.map(candidateLabel) : []);

    // "Portland" with no state was read as Portland, OR; "Cambridge" with no state was ambiguous
    const portland = await q('Portland', null);
    assert.equal(portland.kind, 'ambiguous');
    assert.ok(labels(portland).includes('Portland, OR') && labels(portland).includes('Portland, ME'), JSON.stringify(labels(portland)));
    assert.deepEqual(await q('Portland', 'OR'), { kind: 'gazetteer', name: 'Portland', region: 'OR', country: 'US' });
    const cam = await q('Cambridge', null);
    assert.equal(cam.kind, 'ambiguous');
    assert.ok(labels(cam).includes('Cambridge, MA') && labels(cam).includes('Cambridge, ON'));
    assert.equal((await q('Springfield', null)).kind, 'ambiguous');

    // Saanich's addresses are written "Victoria, BC": Victoria or Saanich, not a confident Victoria
    const vic = await q('Victoria', 'BC');
    assert.equal(vic.kind, 'ambiguous');
    assert.deepEqual(labels(vic).sort(), ['Saanich, BC', 'Victoria, BC']);
    assert.match(vic.kind === 'ambiguous' ? vic.reason : '', /postal city/);
    assert.equal((await q('Victoria', 'TX')).kind, 'gazetteer', 'the postal city is a BC name only');
    // the place's own name is not ambiguous
    const sa = await q('Saanich', 'BC');
    assert.equal(sa.kind === 'place' && sa.place.geoDivisionId, 'CA-BC:saanich');
  } finally {
    await t.close();
  }
});

test('gazetteer and regions: codes, names and postcodes', () => {
  assert.equal(lookupRegion('Québec')?.code, 'QC');
  assert.equal(lookupRegion('CA')?.country, 'US'); // California, not Canada
  assert.equal(lookupRegion('US-MA')?.name, 'Massachusetts');
  assert.equal(lookupGazetteer(gazetteer, 'Chicago')?.region, 'IL');
  assert.equal(lookupGazetteer(gazetteer, 'Paradise', 'TX')?.name, 'Paradise'); // below GeoNames' 1,000 line: from the catalogue
  assert.equal(lookupGazetteer(gazetteer, 'Nowhere Special', 'TX'), null);
  assert.equal(postcodeCountry('02139'), 'US');
  assert.equal(postcodeCountry('V8X 2W9'), 'CA');
  assert.equal(postcodeCountry('hello'), null);
});

test('resolvePlace and findPlaceByPoint on imported Cambridge: postcodes from the centrelines, the city boundary', async () => {
  const { createPlacesDb } = await import('../../test/support/harness.ts');
  const { findPlaceByPoint } = await import('./catalogue.ts');
  const t = await createPlacesDb(['cambridge-ma']);
  try {
    const ctx = testCtx(t.db);
    const byZip = await resolvePlace(ctx, { city: null, region: 'MA', country: 'US', postcode: '02139' });
    assert.equal(byZip.kind === 'place' && byZip.place.geoDivisionId, 'US-MA:cambridge');
    assert.equal(byZip.kind === 'place' && byZip.place.status, 'live');
    // A city named elsewhere wins over a Cambridge ZIP: Somerville (live by its manifest, not imported into this database).
    const som = await resolvePlace(ctx, { city: 'Somerville', region: 'MA', country: 'US', postcode: '02139' });
    assert.equal(som.kind === 'place' && som.place.geoDivisionId, 'US-MA:somerville');
    assert.equal(som.kind === 'place' && som.place.status, 'live_unavailable');
    // Harvard Square is inside the boundary; Davis Square (Somerville) is inside Cambridge's bbox but not
    // the city: it is Somerville's, which this database has not imported, so its declared bbox is all
    // there is to find it by (live_unavailable).
    assert.equal((await findPlaceByPoint(ctx, -71.1189, 42.3736))?.geoDivisionId, 'US-MA:cambridge');
    const davis = await findPlaceByPoint(ctx, -71.1222, 42.3967);
    assert.deepEqual([davis?.geoDivisionId, davis?.status], ['US-MA:somerville', 'live_unavailable']);
    const chi = await resolvePlace(ctx, { city: 'Chicago', region: 'IL', country: 'US', postcode: null });
    assert.equal(chi.kind === 'place' && chi.place.status, 'planned_not_live', 'the whole catalogue is in an imported database');
  } finally {
    await t.close();
  }
});

test('findPlaceByPoint on imported Somerville (districts stated, no zones): its lots are its geometry, not its bbox', async () => {
  const { createPlacesDb } = await import('../../test/support/harness.ts');
  const { findPlaceByPoint } = await import('./catalogue.ts');
  const t = await createPlacesDb(['somerville-ma']);
  try {
    const ctx = testCtx(t.db);
    const lot = (
      await t.db.query<{ inside_lon: number; inside_lat: number }>(
        `SELECT inside_lon, inside_lat FROM parcels WHERE place_id = 'US-MA:somerville' AND inside_lat > 42.41 ORDER BY parcel_ext_id LIMIT 1`,
      )
    )[0]!;
    assert.equal((await findPlaceByPoint(ctx, lot.inside_lon, lot.inside_lat))?.geoDivisionId, 'US-MA:somerville', 'a point in a lot');
    // A street between two lots, 11 m from each (north of Cambridge's bbox, which would claim it while Cambridge is not imported).
    assert.equal((await findPlaceByPoint(ctx, -71.1291, 42.4141))?.geoDivisionId, 'US-MA:somerville', 'a street between its lots');
    // Hillside, Medford: inside Somerville's bbox, no Somerville lot within 200 m. The bbox claimed it before.
    assert.equal(await findPlaceByPoint(ctx, -71.113, 42.413), null);
  } finally {
    await t.close();
  }
});

test('the largest US and Canadian cities are known places (unseeded), whatever name GeoNames gives them', async () => {
  const big: [string, string][] = [
    ['New York', 'NY'],
    ['Los Angeles', 'CA'],
    ['Chicago', 'IL'],
    ['Houston', 'TX'],
    ['Phoenix', 'AZ'],
    ['Philadelphia', 'PA'],
    ['San Antonio', 'TX'],
    ['San Diego', 'CA'],
    ['Dallas', 'TX'],
    ['Washington', 'DC'],
    ['Toronto', 'ON'],
    ['Montreal', 'QC'],
    ['Calgary', 'AB'],
    ['Ottawa', 'ON'],
    ['Edmonton', 'AB'],
    ['Winnipeg', 'MB'],
    ['Mississauga', 'ON'],
    ['Vancouver', 'BC'],
    ['Brampton', 'ON'],
    ['Hamilton', 'ON'],
  ];
  const unknown = big.filter(([city, region]) => !lookupGazetteer(gazetteer, city, region)).map(([c, r]) => `${c}, ${r}`);
  assert.deepEqual(unknown, []);
});
