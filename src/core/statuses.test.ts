import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ALL_STATUSES,
  COVERAGE_STATUSES,
  VALUE_STATUSES,
  STATUS_MEANINGS,
  VALUE_STATUS_STRENGTH,
  UNKNOWN_VALUE_STATUSES,
  weakestStatus,
  isStatus,
  isValueStatus,
} from './statuses.ts';

const SPEC_ORDER = [
  'live',
  'live_unavailable',
  'planned_not_live',
  'geo_division_uncatalogued',
  'unseeded_place',
  'geocode_failed',
  'cited',
  'cited_conditional',
  'conditional_unresolved',
  'no_limit_in_bylaw',
  'not_extracted',
  'site_specific_schedule',
  'unverified_default',
  'derived_from_cited',
  'defaulted',
  'missing',
];

test('the 16 statuses of the spec, in its order, each with a meaning', () => {
  assert.deepEqual([...ALL_STATUSES], SPEC_ORDER);
  assert.deepEqual([...COVERAGE_STATUSES, ...VALUE_STATUSES].sort(), [...SPEC_ORDER].sort());
  for (const s of ALL_STATUSES) {
    const m = STATUS_MEANINGS[s];
    assert.equal(m.status, s);
    assert.equal(m.kind, (COVERAGE_STATUSES as readonly string[]).includes(s) ? 'coverage' : 'value');
    assert.ok(m.meaning.length > 20 && m.nullMeans.length > 10, s);
  }
  assert.equal(Object.keys(STATUS_MEANINGS).length, 16);
});

test('not_extracted and site_specific_schedule are unknown: never no limit, never zero; no_limit_in_bylaw is a real answer', () => {
  for (const s of ['not_extracted', 'site_specific_schedule', 'conditional_unresolved', 'missing'] as const) {
    assert.equal(STATUS_MEANINGS[s].unknown, true, s);
    assert.ok(UNKNOWN_VALUE_STATUSES.includes(s));
  }
  assert.deepEqual([...UNKNOWN_VALUE_STATUSES].sort(), ['conditional_unresolved', 'missing', 'not_extracted', 'site_specific_schedule']);
  assert.match(STATUS_MEANINGS.not_extracted.nullMeans, /Never "no limit", never zero/);
  assert.match(STATUS_MEANINGS.site_specific_schedule.nullMeans, /Never "no limit", never zero/);
  assert.equal(STATUS_MEANINGS.no_limit_in_bylaw.unknown, false);
  assert.equal(STATUS_MEANINGS.no_limit_in_bylaw.authoritative, true);
  assert.equal(STATUS_MEANINGS.unverified_default.authoritative, false);
});

test('strength order covers every value status; the weakest input wins', () => {
  assert.deepEqual([...VALUE_STATUS_STRENGTH].sort(), [...VALUE_STATUSES].sort());
  assert.equal(weakestStatus([]), 'cited');
  assert.equal(weakestStatus(['cited', 'unverified_default']), 'unverified_default');
  assert.equal(weakestStatus(['cited_conditional', 'not_extracted', 'missing']), 'not_extracted');
  assert.equal(weakestStatus(['defaulted', 'unverified_default']), 'defaulted');
  assert.equal(weakestStatus(['site_specific_schedule', 'conditional_unresolved']), 'site_specific_schedule');
  // Every unknown status is weaker than every known one.
  const idx = (s: (typeof VALUE_STATUSES)[number]) => VALUE_STATUS_STRENGTH.indexOf(s);
  for (const u of UNKNOWN_VALUE_STATUSES)
    for (const k of VALUE_STATUSES.filter((s) => !UNKNOWN_VALUE_STATUSES.includes(s))) assert.ok(idx(u) > idx(k), `${u} weaker than ${k}`);
});

test('guards', () => {
  assert.equal(isStatus('cited'), true);
  assert.equal(isStatus('nonsense'), false);
  assert.equal(isStatus(3), false);
  assert.equal(isValueStatus('live'), false);
});
