// The core function on the real Cambridge import: the golden addresses (built from the source files
// without siteline's code paths, see scripts/build-golden.ts), every coverage reason, and bad input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPlacesDb, createTestDb, testCtx, ROOT, type TestDb } from './support/harness.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { previewSiteCoverage } from '../src/snapshot/preview.ts';
import { SitelineError } from '../src/core/errors.ts';
import { STATUS_MEANINGS, isValueStatus } from '../src/core/statuses.ts';
import type { AppContext } from '../src/context.ts';
import type { Snapshot } from '../src/core/snapshot-types.ts';
import { loadSourceCatalogue, requiresAttribution, withSourcesInline } from '../src/snapshot/source-catalogue.ts';

/** Bytes of compact JSON a typical (median) answered Cambridge snapshot may take, and the largest one (issue 14). */
const SNAPSHOT_JSON_BUDGET = 5_000;
const SNAPSHOT_JSON_MAX = 6_144;

const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/cambridge-addresses.json'), 'utf8')) as {
  addresses: { address: string; parcelExternalId: string; zone: string }[];
};

describe('snapshot on the real Cambridge import', () => {
  let tdb: TestDb;
  let ctx: AppContext;
  before(async () => {
    tdb = await createPlacesDb(['cambridge-ma', 'chicago-il']);
    ctx = testCtx(tdb.db);
  });
  after(async () => tdb.close());

  test('a number with a suffix the table lacks is named as written ("No 11-13", not "No 1113") beside the row it matched', async () => {
    const s = await getFeasibilitySnapshot(ctx, '11-13 Acorn St, Cambridge, MA');
    assert.equal(s.address!.warnings[0], 'No 11-13 in the address table; matched 11 Acorn St.');
    assert.equal(s.address!.confidence, 0.8);
  });

  test('a postcode the place does not hold (a Boston ZIP with Cambridge) is said and lowers the confidence; a Cambridge ZIP changes nothing', async () => {
    const { hotIndexOf, warmPlaceIndex } = await import('../src/geocoder/place-index.ts');
    const { getPlace } = await import('../src/places/catalogue.ts');
    // a cold place is read through SQL while its index loads: loaded first, so that the hot pass reads it
    assert.ok(await warmPlaceIndex(ctx, (await getPlace({ db: tdb.db }, 'US-MA:cambridge'))!));
    for (const hot of [true, false]) {
      hotIndexOf(ctx).setEnabled(hot); // the hot index and SQL hold the same postcodes
      try {
        const plain = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge, MA');
        const own = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge, MA 02138');
        const boston = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge, Massachusetts 02108');
        assert.equal(own.address!.confidence, plain.address!.confidence);
        assert.ok(!own.address!.warnings.some((w) => /postcode/.test(w)), JSON.stringify(own.address!.warnings));
        assert.equal(boston.lot!.parcelExternalId, plain.lot!.parcelExternalId, 'the city named was followed');
        assert.ok(boston.address!.confidence <= plain.address!.confidence - 0.2 + 1e-9, String(boston.address!.confidence));
        const w = boston.address!.warnings.find((x) => /postcode 02108/.test(x));
        assert.match(w ?? '', /not one this place's data holds \([^)]*02138[^)]*\); the city named was followed/);
      } finally {
        hotIndexOf(ctx).setEnabled(true);
      }
    }
  });

  test(`golden addresses: lot id and primary zone (${golden.addresses.length} addresses)`, async () => {
    const wrong: string[] = [];
    for (const g of golden.addresses) {
      const s = await getFeasibilitySnapshot(ctx, g.address);
      if (!s.answered) wrong.push(`${g.address}: not answered (${s.coverage.status}: ${s.coverage.message})`);
      else if (s.lot!.parcelExternalId !== g.parcelExternalId) wrong.push(`${g.address}: lot ${s.lot!.parcelExternalId}, expected ${g.parcelExternalId}`);
      else if (s.zones!.primary !== g.zone) wrong.push(`${g.address}: zone ${s.zones!.primary}, expected ${g.zone}`);
    }
    assert.deepEqual(wrong, []);
  });

  test('an answered snapshot is complete and honest', async () => {
    const s = await getFeasibilitySnapshot(ctx, golden.addresses[0]!.address);
    assert.equal(s.answered, true);
    assert.equal(s.coverage.status, 'live');
    assert.equal(s.coverage.eligibilityKnown, true);
    assert.equal(s.coverage.geoDivisionId, 'US-MA:cambridge');
    const lot = s.lot!;
    assert.ok(lot.latitude > 42.35 && lot.latitude < 42.41 && lot.longitude > -71.17 && lot.longitude < -71.06, 'point inside Cambridge');
    assert.ok(lot.areaM2 > 20 && Math.abs(lot.areaSqft / lot.areaM2 - 10.7639) < 0.01);
    assert.ok(s.address!.confidence > 0 && s.address!.confidence <= 1);
    assert.equal(s.address!.matchType, 'address_table');
    // Sources: labels by id here, in full once in the place's catalogue (the snapshot names its version).
    const catalogue = (await loadSourceCatalogue(ctx, 'cambridge-ma'))!;
    assert.equal(s.sourceCatalogue?.url, catalogue.ref.url);
    assert.match(s.sourceCatalogue!.url, /^\/places\/cambridge-ma\/sources\.json\?v=[0-9a-f]{12}$/);
    assert.equal(s.sourceCatalogue!.sources, undefined, 'the catalogue is not inline unless asked for');
    assert.ok(
      Object.values(catalogue.sources).some((x) => /PDDL|Public Domain/i.test(x.licence ?? '')),
      'Cambridge licence named in the catalogue',
    );
    assert.equal(s.attribution, undefined, 'a public-domain dedication asks for no attribution statement');
    assert.equal(s.sources[lot.source], catalogue.sources[lot.source]!.label, 'the lot names its source layer by id, with its label');
    for (const [name, v] of Object.entries(s.envelope!)) {
      assert.ok(isValueStatus(v.status), `${name} has a value status`);
      if (v.value === null) assert.notEqual(v.status, 'cited', `${name}: a cited value is never null`);
      if (STATUS_MEANINGS[v.status].unknown) assert.equal(v.value, null, `${name}: ${v.status} carries no number`);
      if (v.status === 'cited') assert.ok(v.citation && s.citations?.[v.citation]?.section, `${name}: cited without a section`);
      // Every reference resolves inside the snapshot: nothing is named that is not defined.
      if (v.citation) assert.ok(s.citations?.[v.citation], `${name}: citation ${v.citation} is defined`);
      for (const id of v.notes ?? []) assert.ok(s.notes?.[id], `${name}: note ${id} is defined`);
      for (const m of `${v.note ?? ''} ${v.condition ?? ''}`.matchAll(/\bS\d+\b/g)) {
        assert.ok(s.sources[m[0]], `${name}: source ${m[0]} has its label`);
        assert.match(catalogue.sources[m[0]]?.url ?? '', /^https:\/\//, `${name}: source ${m[0]} is defined with its address in the catalogue`);
      }
    }
    // RULES-FACTS.md: nothing in Cambridge was read from the ordinance itself.
    assert.ok(Object.values(s.envelope!).every((v) => v.status !== 'cited' && v.status !== 'derived_from_cited'));
  });

  test('payload: a typical answered snapshot is at most 5 KB of JSON, with each source and citation defined once', async () => {
    // A size budget, not a timing (docs/snapshot.md, "Size"): 11 Acorn St was 13.3 KB compact before references, 8.9 KB before the catalogue.
    const sizes: number[] = [];
    for (const { address } of golden.addresses) {
      const s = await getFeasibilitySnapshot(ctx, address);
      assert.equal(s.answered, true, address);
      const json = JSON.stringify(s);
      sizes.push(Buffer.byteLength(json));
      assert.ok(Buffer.byteLength(json) <= SNAPSHOT_JSON_MAX, `${address}: ${Buffer.byteLength(json)} bytes (largest allowed ${SNAPSHOT_JSON_MAX})`);
      // Defined once: no URL and no note text appears twice.
      const urls = json.match(/https?:\/\/[^"\s)]+/g) ?? [];
      assert.equal(new Set(urls).size, urls.length, `${address}: a URL is repeated`);
      const texts = [...Object.values(s.envelope!), ...s.permittedUses!].flatMap((v) => [v.note, v.condition]).filter(Boolean);
      assert.equal(new Set(texts).size, texts.length, `${address}: a note or condition is written twice`);
    }
    const median = [...sizes].sort((a, b) => a - b)[Math.floor(sizes.length / 2)]!;
    assert.ok(median <= SNAPSHOT_JSON_BUDGET, `median ${median} bytes over ${sizes.length} golden addresses (budget ${SNAPSHOT_JSON_BUDGET})`);
  });

  test('sources inline on request: every source of the place in full, nothing else changed', async () => {
    const s = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge, MA');
    const full = await withSourcesInline(ctx, s);
    const catalogue = (await loadSourceCatalogue(ctx, 'cambridge-ma'))!;
    assert.deepEqual(full.sourceCatalogue, { url: s.sourceCatalogue!.url, sources: catalogue.sources });
    assert.deepEqual({ ...full, sourceCatalogue: undefined }, { ...s, sourceCatalogue: undefined });
    for (const id of Object.keys(s.sources)) assert.equal(full.sourceCatalogue!.sources![id]!.label, s.sources[id], `${id}: the label is the catalogue's`);
    for (const layer of ['parcels', 'zoning', 'addresses'])
      assert.match(full.sourceCatalogue!.sources![layer]!.attribution ?? '', /Public Domain Dedication/, `${layer}: attribution kept in the catalogue`);
    assert.match(full.sourceCatalogue!.sources!['rules']!.url ?? '', /^https:\/\/cambridgema\.gov\//);
  });

  test('a licence that asks for attribution keeps its statement in every answer (Chicago, MIT; Saanich, OGL-BC)', async () => {
    const s = await getFeasibilitySnapshot(ctx, '233 S Wacker Dr, Chicago, IL 60606');
    assert.equal(s.answered, false);
    const chicago = (await loadSourceCatalogue(ctx, 'chicago-il'))!;
    assert.deepEqual(s.attribution, [chicago.sources['zoning']!.attribution]);
    assert.equal(s.sourceCatalogue?.url, chicago.ref.url, 'the same catalogue (and version) as the place serves');
    assert.deepEqual(s.sources, {}, 'an answer that names no source lists none');
    assert.equal(requiresAttribution('Open Government Licence - District of Saanich (Saanich Data Catalogue Licence, OGL-BC v2 based)'), true);
    assert.equal(requiresAttribution('ODC-PDDL-1.0'), false);
    assert.equal(requiresAttribution('MIT'), true);
  });

  test('the same address typed differently gives the same lot', async () => {
    const g = golden.addresses.find((x) => /\bSt\b/.test(x.address))!;
    const [num, ...rest] = g.address.split(',')[0]!.split(' ');
    const variants = [
      g.address,
      `${num} ${rest.join(' ').replace(/\bSt$/, 'Street')}, cambridge ma`,
      `  ${g.address.toUpperCase()}  `,
      `${g.address.split(',')[0]} Cambridge MA 02139`,
    ];
    for (const v of variants) {
      const s = await getFeasibilitySnapshot(ctx, v);
      assert.equal(s.lot?.parcelExternalId, g.parcelExternalId, v);
    }
  });

  test('coverage: planned_not_live (Chicago has zoning but no addresses)', async () => {
    const s = await getFeasibilitySnapshot(ctx, '233 S Wacker Dr, Chicago, IL 60606');
    assert.equal(s.answered, false);
    assert.equal(s.coverage.status, 'planned_not_live');
    assert.equal(s.coverage.eligibilityKnown, true);
    assert.equal(s.lot, undefined);
  });

  test('coverage: unseeded_place (a known city with no data)', async () => {
    const s = await getFeasibilitySnapshot(ctx, '100 Main St, Burlington, VT 05401');
    assert.equal(s.answered, false);
    assert.equal(s.coverage.status, 'unseeded_place');
    assert.equal(s.coverage.eligibilityKnown, true);
  });

  test('coverage: geo_division_uncatalogued (no place can be determined)', async () => {
    for (const a of ['12 Main St', '5 Foo St, Qwzxyville, MA']) {
      const s = await getFeasibilitySnapshot(ctx, a);
      assert.equal(s.answered, false, a);
      assert.equal(s.coverage.status, 'geo_division_uncatalogued', a);
      assert.equal(s.coverage.eligibilityKnown, false, a);
    }
  });

  test('a city name several places share, with no state or province, is not guessed', async () => {
    const s = await getFeasibilitySnapshot(ctx, '300 Main St, Cambridge');
    assert.equal(s.answered, false);
    assert.equal(s.coverage.status, 'geo_division_uncatalogued');
    assert.equal(s.coverage.eligibilityKnown, false);
    assert.match(s.coverage.message, /Cambridge, MA/);
    assert.match(s.coverage.message, /Cambridge, ON/);
    const withState = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge, MA');
    assert.equal(withState.answered, true);
    const withZip = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge 02139');
    assert.equal(withZip.answered, true);
  });

  test('New York and Washington are known places without data', async () => {
    for (const a of ['350 5th Ave, New York, NY 10118', '1600 Pennsylvania Ave NW, Washington, DC 20500']) {
      const s = await getFeasibilitySnapshot(ctx, a);
      assert.equal(s.coverage.status, 'unseeded_place', a);
      assert.equal(s.coverage.eligibilityKnown, true, a);
    }
  });

  test('coverage: geocode_failed, never a centroid, with suggestions for a near-miss street', async () => {
    const s = await getFeasibilitySnapshot(ctx, '12 Zzyzx Blvd, Cambridge, MA');
    assert.equal(s.answered, false);
    assert.equal(s.coverage.status, 'geocode_failed');
    assert.equal(s.lot, undefined);
    const far = await getFeasibilitySnapshot(ctx, '99999 Massachusetts Ave, Cambridge, MA');
    assert.equal(far.coverage.status, 'geocode_failed');
    assert.equal(far.lot, undefined);
  });

  test('bad input is a clear bad_input error, never a crash', async () => {
    const bad = ['', '   ', 'x'.repeat(10_240), '12 Main St\u0000, Cambridge, MA', '\u0007\u0008'];
    for (const b of bad) {
      await assert.rejects(
        getFeasibilitySnapshot(ctx, b),
        (e: unknown) => e instanceof SitelineError && e.code === 'bad_input' && e.message.length > 10,
        JSON.stringify(b.slice(0, 20)),
      );
    }
  });

  test('hostile but printable input is answered honestly (not covered or not matched)', async () => {
    const odd = [
      '1; DROP TABLE parcels; --, Cambridge, MA',
      "12 Main St' OR '1'='1, Cambridge, MA",
      '12 Главная ул, Cambridge, MA',
      '12 中山路, Cambridge, MA',
      '57 Inman St, Cambridge, MA 00000',
      '57 Inman St, Cambridge, MA 99999',
    ];
    for (const a of odd) {
      let s: Snapshot | undefined;
      try {
        s = await getFeasibilitySnapshot(ctx, a);
      } catch (e) {
        assert.ok(e instanceof SitelineError && e.code === 'bad_input', `${a}: ${String(e)}`);
        continue;
      }
      assert.equal(s.answered, false, a);
    }
    const parcels = await tdb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM parcels');
    assert.ok(parcels[0]!.n > 10_000, 'nothing was lost');
  });

  test('preview: covered, lot and zone found, and no zoning values', async () => {
    const p = await previewSiteCoverage(ctx, golden.addresses[0]!.address);
    assert.equal(p.covered, true);
    assert.equal(p.lotFound, true);
    assert.equal(p.zoneFound, true);
    const text = JSON.stringify(p);
    assert.ok(!text.includes(golden.addresses[0]!.parcelExternalId), 'no parcel id');
    assert.ok(!text.includes(`"${golden.addresses[0]!.zone}"`), 'no zone code');
    for (const key of ['envelope', 'lot', 'zones', 'permittedUses', 'latitude', 'longitude']) assert.ok(!(key in p), `no ${key}`);
    const q = await previewSiteCoverage(ctx, '233 S Wacker Dr, Chicago, IL');
    assert.equal(q.covered, false);
    assert.equal(q.coverage.status, 'planned_not_live');
  });
});

test('coverage: live_unavailable when the live place has no data loaded', async () => {
  const tdb = await createTestDb();
  try {
    const ctx = testCtx(tdb.db);
    const { ensureCatalogue } = await import('../src/importer/default-places.ts');
    await ensureCatalogue(ctx);
    const s = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge, MA');
    assert.equal(s.answered, false);
    assert.equal(s.coverage.status, 'live_unavailable');
    assert.equal(s.coverage.eligibilityKnown, true);
    // Importing the place answers at once: the catalogue cache is dropped by the import.
    const { importPlace } = await import('../src/importer/import-place.ts');
    await importPlace(ctx, 'cambridge-ma', { sourceDir: ctx.config.sourceDir, quiet: true });
    const after = await getFeasibilitySnapshot(ctx, '11 Acorn St, Cambridge, MA');
    assert.equal(after.answered, true);
    assert.equal(after.coverage.status, 'live');
  } finally {
    await tdb.close();
  }
});
