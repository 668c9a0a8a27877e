// Provenance by reference on real rules: Somerville's cited envelope for a building type (verified
// citations, one shared by two values) and Cambridge's notes (sources named by id, shared notes and conditions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import v8 from 'node:v8';
import { buildEnvelope } from '../core/envelope.ts';
import { citationOf, conditionOf, notesOf, referenceProvenance } from './refs.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { rulesIn } from '../../test/support/rules-context.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');
const LOT = { areaSqft: 5000, frontageFt: 40, depthFt: 125, cornerLot: false, country: 'US' as const };

async function referenced(slug: string, zone: string, buildingType?: string) {
  const rules = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), slug);
  const built = buildEnvelope({
    rules,
    primaryZone: zone,
    zones: [{ code: zone, share: 1 }],
    overlays: [],
    lot: LOT,
    ...(buildingType ? { building: { buildingType } } : {}),
  });
  return {
    rules,
    built,
    refs: referenceProvenance({ envelope: built.envelope, permittedUses: built.permittedUses, warnings: built.notes, named: rules.sources ?? {} }),
  };
}

test('each citation is defined once, with its sectionUuid, and every value still reaches its own', async () => {
  const { built, refs } = await referenced('somerville-ma', 'NR', 'Detached House');
  const cited = Object.entries(built.envelope).filter(([, v]) => v.citation);
  assert.ok(cited.length >= 5, 'a Detached House in NR has cited values');
  const distinct = new Set([
    ...cited.map(([, v]) => JSON.stringify(v.citation)),
    ...built.permittedUses.filter((u) => u.citation).map((u) => JSON.stringify(u.citation)),
  ]);
  assert.equal(Object.keys(refs.citations).length, distinct.size, 'one entry per distinct citation (values and uses)');
  for (const [name, v] of cited) {
    const c = citationOf(refs, refs.envelope[name]);
    assert.deepEqual(c, v.citation, `${name} reaches its citation`);
    assert.ok(c!.sectionUuid, `${name}: sectionUuid kept`);
  }
  const urls = Object.values(refs.citations).map((c) => JSON.stringify(c));
  assert.equal(new Set(urls).size, urls.length, 'no citation defined twice');
});

test('shared notes and conditions are written once; named sources are defined; nothing is lost', async () => {
  const { rules, built, refs } = await referenced('cambridge-ma', 'C-1');
  for (const [name, v] of Object.entries(built.envelope)) {
    const r = refs.envelope[name]!;
    assert.equal(r.status, v.status, name);
    assert.equal(r.value, v.value, name);
    assert.equal(conditionOf(refs, r), v.condition, `${name}: condition reachable`);
    assert.deepEqual(notesOf(refs, r), v.note ? [v.note] : [], `${name}: note reachable`);
  }
  assert.ok(refs.envelope['minSideYardFt']!.conditionNote, 'the side and rear yards share one condition');
  assert.equal(refs.envelope['minSideYardFt']!.conditionNote, refs.envelope['minRearYardFt']!.conditionNote);
  assert.ok(refs.namedSourceIds.includes('S1') && rules.sources?.['S1']?.url, 'S1 named, and defined with its address in the rules');
  assert.doesNotMatch(JSON.stringify(refs.envelope), /https?:\/\//, 'no URL is written on a value');
});

test('a citation object changed between calls is keyed afresh (the per-object key cache re-checks its fields)', async () => {
  const { built } = await referenced('somerville-ma', 'NR', 'Detached House');
  const rules = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'somerville-ma');
  const [name, v] = Object.entries(built.envelope).find(([, x]) => x.citation)!;
  // Two objects with equal content name one entry...
  const p = { ...v.citation! };
  const q = { ...v.citation! };
  const run = () =>
    referenceProvenance({
      envelope: { [name]: { ...v, citation: p }, other: { ...v, citation: q } },
      permittedUses: [],
      warnings: [],
      named: rules.sources ?? {},
    });
  assert.equal(Object.keys(run().citations).length, 1);
  // ...until one of them changes: then two, each value reaching its own.
  p.section = `${p.section} (amended)`;
  const again = run();
  assert.equal(Object.keys(again.citations).length, 2);
  assert.equal(citationOf(again, again.envelope[name])!.section, p.section);
  assert.equal(citationOf(again, again.envelope['other'])!.section, q.section);
});

test("an answer's records are objects V8 serialises on its fast path: no dictionary, no shared frozen inputs (bench/json-shape.ts)", async () => {
  // %HasFastProperties is V8's own answer; the flag only lets this test ask it.
  v8.setFlagsFromString('--allow-natives-syntax');
  const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
  for (const [slug, zone, type] of [
    ['cambridge-ma', 'C-1'],
    ['somerville-ma', 'NR', 'Detached House'],
  ] as const) {
    const { built, refs } = await referenced(slug, zone, type);
    assert.ok(Object.keys(refs.envelope).length > 17, `${slug}: enough values that computed keys would have made a dictionary`);
    for (const [what, record] of [
      ['envelope', refs.envelope],
      ['citations', refs.citations],
      ['notes', refs.notes],
    ] as const) {
      assert.ok(hasFastProperties(record), `${slug}: the ${what} has fast properties`);
    }
    for (const [name, v] of Object.entries(refs.envelope)) {
      if (!v.inputs) continue;
      assert.notEqual(v.inputs, built.envelope[name]!.inputs, `${slug} ${name}: inputs copied, not the recipe's shared array`);
      assert.equal(Object.isFrozen(v.inputs), false, `${slug} ${name}: inputs not frozen`);
      assert.deepEqual(v.inputs, built.envelope[name]!.inputs, `${slug} ${name}: the same inputs`);
    }
  }
});
