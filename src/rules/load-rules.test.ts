import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadPlaceRules, PLACES_DIR, RulesFileError } from './load-rules.ts';
import { rulesIn } from '../../test/support/rules-context.ts';
import { findDistrict } from '../core/rules-schema.ts';
import type { PlaceRules } from '../core/rules-schema.ts';
import { listManifestSlugs } from '../places/manifest.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');
/** Every shipped place (from the manifests, so a new place is checked without editing this test). */
const PLACES = listManifestSlugs(PLACES_DIR);

function tmpPlaces(slug: string, rules: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-rules-'));
  fs.mkdirSync(path.join(dir, slug));
  fs.writeFileSync(path.join(dir, slug, 'rules.json'), typeof rules === 'string' ? rules : JSON.stringify(rules));
  return dir;
}

function allValues(rules: PlaceRules) {
  return Object.entries(rules.districts).flatMap(([code, d]) => [
    ...Object.entries(d.standards).map(([k, v]) => ({ code, key: k, status: v!.status })),
    ...d.uses.map((u) => ({ code, key: u.use, status: u.status })),
  ]);
}

test("every shipped place's rules load and validate, and loads are cached", async () => {
  for (const named of ['cambridge-ma', 'chicago-il', 'saanich-bc', 'paradise-tx', 'somerville-ma']) assert.ok(PLACES.includes(named), named);
  for (const slug of PLACES) {
    const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), slug);
    assert.equal(r.slug, slug);
    assert.ok(r.bylaw.name && r.bylaw.url && r.bylaw.date);
    assert.ok(Object.keys(r.districts).length > 0, `${slug} has districts`);
    assert.equal(await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), slug), r, 'same object from the cache');
  }
});

test('Cambridge: nothing is cited (no value was read from the ordinance); every layer district is present', async () => {
  const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'cambridge-ma');
  const values = allValues(r);
  for (const v of values) assert.ok(['unverified_default', 'not_extracted', 'site_specific_schedule'].includes(v.status), `${v.code} ${v.key}: ${v.status}`);
  const layer = JSON.parse(fs.readFileSync(path.join(SOURCE_DIR, 'cambridge-ma/CDD/Zoning_Districts/CDD_ZoningDistricts.geojson'), 'utf8')) as {
    features: { properties: { ZONE_TYPE: string } }[];
  };
  for (const f of layer.features) assert.ok(findDistrict(r, f.properties.ZONE_TYPE), `district ${f.properties.ZONE_TYPE}`);
  // Pre-2025 values (RULES-FACTS.md §8) are stale and never served.
  const c1 = r.districts['C-1']!.standards;
  assert.notEqual(c1.maxHeightFt!.value, 35);
  assert.equal(c1.minLotAreaPerUnitSqft!.value, null);
  assert.equal(c1.maxFar!.value, null);
  assert.equal(r.districts['IA-1']!.standards.maxFar, undefined);
  assert.equal(r.districts['SD-1']!.otherStandards!.status, 'site_specific_schedule');
  assert.equal(r.districts['SD-1']!.governedBy?.startsWith('Art. 17.000'), true);
  for (const d of Object.values(r.districts))
    for (const s of Object.values(d.standards))
      if (s!.status === 'unverified_default') {
        // The note names its source by id (S1 ...), defined once in the file's sources with its address.
        const ids = s!.note!.match(/\bS\d+\b/g) ?? [];
        assert.ok(ids.length > 0, `the source is named: ${s!.note}`);
        for (const id of ids) assert.match(r.sources?.[id]?.url ?? '', /^https?:\/\//, `${id} is defined`);
      }
});

test('Chicago: nothing is cited (no ordinance text is held); hand transcriptions name their section and edition; layer codes map', async () => {
  const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'chicago-il');
  for (const v of allValues(r)) assert.ok(!['cited', 'cited_conditional', 'no_limit_in_bylaw'].includes(v.status), `${v.code} ${v.key}: ${v.status}`);
  const far = r.districts['B1-1']!.standards.maxFar!;
  assert.deepEqual([far.status, far.value], ['unverified_default', 1.2]);
  assert.match(far.note!, /Transcribed by hand from Sec\. 17-3-0403-A .*read 2026-11-21.*cannot be verified/);
  assert.match(r.districts['B1-1']!.standards.maxHeightFt!.note!, /export dated 2023-10-02/, 'the other edition is named where it was read');
  assert.equal(r.districts['RS-3']!.standards.maxFar!.status, 'unverified_default');
  assert.equal(findDistrict(r, 'PD 991')?.code, 'PD');
  assert.equal(findDistrict(r, 'PMD 3')?.code, 'PMD');
  assert.equal(findDistrict(r, 'RM4.5')?.code, 'RM-4.5');
  assert.equal(findDistrict(r, 'RT-4.5'), null);
  assert.equal(r.districts.PD!.otherStandards!.status, 'site_specific_schedule');
});

test('Saanich: every zone TYPE of the layer, not_extracted, with its bylaw page as where to read', async () => {
  const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'saanich-bc');
  assert.equal(Object.keys(r.districts).length, 155);
  const d = r.districts['RS-6']!;
  assert.equal(d.otherStandards!.status, 'not_extracted');
  assert.match(d.sourceUrl!, /zone8200\.pdf#page=\d+$/);
  assert.match(d.otherStandards!.note!, /zone8200\.pdf#page=/);
});

test('Paradise: districts come from the OZFS feed at load time, indicative (a sample feed is not the ordinance)', async () => {
  const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'paradise-tx');
  assert.deepEqual(Object.keys(r.districts).sort(), ['A', 'B-1', 'I-1', 'I-2', 'MU', 'R-1', 'R-2']);
  const h = r.districts['R-1']!.standards.maxHeightFt!;
  assert.deepEqual([h.status, h.value, h.citation], ['unverified_default', 35, undefined]);
  assert.match(h.note!, /Feed constraint R-1 height\.max_val/);
  assert.equal(r.districts['B-1']!.standards.maxHeightStoreys!.status, 'unverified_default', 'B-1 storeys are not cited');
  assert.equal(r.districts.A!.standards.minLotAreaSqft!.value, 87120, '2 acres in sq ft');
  assert.ok(r.districts['R-2']!.standards.minLotAreaSqft!.tiers);
  for (const v of allValues(r)) assert.notEqual(v.status, 'cited', `${v.code} ${v.key}`);
  // A residential type the feed does not list is unknown, never prohibited.
  for (const d of Object.values(r.districts)) for (const u of d.uses) assert.notEqual(u.permission, 'prohibited', `${u.use}`);
  const unlisted = r.districts['R-1']!.uses.find((u) => u.use === 'residential:4_plus')!;
  assert.deepEqual([unlisted.permission, unlisted.status], ['unknown', 'not_extracted']);
  await assert.rejects(loadPlaceRules(rulesIn({ sourceDir: fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-nosrc-')) }), 'paradise-tx'), (e: Error) => {
    assert.ok(e instanceof RulesFileError);
    assert.match(e.message, /Paradise\.zoning/);
    return true;
  });
});

test('no rules generator is left in src/: the rules files are the source of truth', () => {
  const left = fs.readdirSync(import.meta.dirname).filter((f) => /^build-.*-rules\.ts$/.test(f));
  assert.deepEqual(left, []);
  for (const slug of PLACES) {
    const text = fs.readFileSync(path.join(PLACES_DIR, slug, 'rules.json'), 'utf8');
    assert.doesNotMatch(text, /"\/(?:work|home|Users|tmp)\//, `${slug}: no absolute path of a machine`);
  }
});

test('a bad rules file fails with a message naming the path and the field', async () => {
  const good = JSON.parse(fs.readFileSync(path.join(PLACES_DIR, 'cambridge-ma', 'rules.json'), 'utf8'));

  const cited = structuredClone(good);
  cited.districts['C-1'].standards.maxHeightFt = { status: 'cited', value: 45 };
  const dir1 = tmpPlaces('cambridge-ma', cited);
  await assert.rejects(loadPlaceRules(rulesIn({ placesDir: dir1 }), 'cambridge-ma'), (e: Error) => {
    assert.ok(e instanceof RulesFileError);
    assert.ok(e.message.includes(path.join(dir1, 'cambridge-ma', 'rules.json')), e.message);
    assert.match(e.message, /districts\.C-1\.standards\.maxHeightFt\.citation: cited needs a citation/);
    return true;
  });

  const zero = structuredClone(good);
  zero.districts.BA.standards.maxFar = { status: 'not_extracted', value: 0 };
  await assert.rejects(
    loadPlaceRules(rulesIn({ placesDir: tmpPlaces('cambridge-ma', zero) }), 'cambridge-ma'),
    /districts\.BA\.standards\.maxFar\.value: not_extracted carries value null/,
  );

  const typo = structuredClone(good);
  typo.districts.BA.standards.maxHieght = { status: 'not_extracted' };
  await assert.rejects(loadPlaceRules(rulesIn({ placesDir: tmpPlaces('cambridge-ma', typo) }), 'cambridge-ma'), /districts\.BA\.standards.*maxHieght/);

  const schedule = structuredClone(good);
  delete schedule.districts['SD-1'].governedBy;
  await assert.rejects(loadPlaceRules(rulesIn({ placesDir: tmpPlaces('cambridge-ma', schedule) }), 'cambridge-ma'), /districts\.SD-1\.governedBy/);

  await assert.rejects(loadPlaceRules(rulesIn({ placesDir: tmpPlaces('cambridge-ma', '{ not json') }), 'cambridge-ma'), /is not valid JSON/);
  await assert.rejects(
    loadPlaceRules(rulesIn({ placesDir: tmpPlaces('chicago-il', good) }), 'cambridge-ma'),
    /Cannot read rules file .*cambridge-ma.*rules\.json: ENOENT/,
  );
  await assert.rejects(
    loadPlaceRules(rulesIn({ placesDir: tmpPlaces('chicago-il', good) }), 'chicago-il'),
    /slug: "cambridge-ma" does not match the folder "chicago-il"/,
  );
  await assert.rejects(loadPlaceRules(rulesIn({}), '../etc'), /Not a place slug/);
});

test('a failed load is not cached: fixing the file fixes the load', async () => {
  const good = JSON.parse(fs.readFileSync(path.join(PLACES_DIR, 'saanich-bc', 'rules.json'), 'utf8'));
  const dir = tmpPlaces('saanich-bc', '{}');
  await assert.rejects(loadPlaceRules(rulesIn({ placesDir: dir }), 'saanich-bc'), /slug/);
  fs.writeFileSync(path.join(dir, 'saanich-bc', 'rules.json'), JSON.stringify(good));
  assert.equal((await loadPlaceRules(rulesIn({ placesDir: dir }), 'saanich-bc')).slug, 'saanich-bc');
});

test('statedNoLimit marks only an unverified no-limit: unverified_default, value null, no tiers', async () => {
  const { ruleValueSchema } = await import('../core/rules-schema.ts');
  assert.ok(ruleValueSchema.safeParse({ status: 'unverified_default', value: null, note: 'Removed per S1.', statedNoLimit: 'S1' }).success);
  for (const bad of [
    { status: 'unverified_default', value: 2, note: 'x', statedNoLimit: 'S1' },
    { status: 'not_extracted', value: null, statedNoLimit: 'S1' },
    { status: 'no_limit_in_bylaw', citation: { document: 'doc', section: '1', quote: 'quote' }, statedNoLimit: 'S1' },
    { status: 'unverified_default', value: null, note: 'x', statedNoLimit: 'a forum' },
  ])
    assert.equal(ruleValueSchema.safeParse(bad).success, false, JSON.stringify(bad));
  // Cambridge's FAR and minimum lot sizes after Feb 2025 carry the source that states no limit.
  const cambridge = await loadPlaceRules(rulesIn(), 'cambridge-ma');
  const c1 = findDistrict(cambridge, 'C-1')!.district.standards;
  assert.deepEqual([c1.maxFar!.status, c1.maxFar!.value, c1.maxFar!.statedNoLimit], ['unverified_default', null, 'S1']);
  assert.equal(c1.minLotAreaSqft!.statedNoLimit, 'S1');
});
