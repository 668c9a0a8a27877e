// The text an MCP snapshot result carries beside its structured content: what it says, on the
// documented Cambridge example (docs/examples/cambridge-snapshot.json) and on variations of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { valueWords } from '../core/value-words.ts';
import { snapshotSummary } from './summary.ts';
import { ANSWER_WARNING_RULES, answerWarnings } from './answer-warnings.ts';
import { areaWarning } from './lot-area-warning.ts';
import { MATCH_HOW, matchDoubt } from './match-doubt.ts';
import { STATUS_LABELS } from '../core/status-words.ts';
import type { Snapshot } from '../core/snapshot-types.ts';

const example = (): Snapshot => JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/cambridge-snapshot.json'), 'utf8')) as Snapshot;

test('an answered snapshot: the matched address, the lot, the zone, the headline values and every envelope status counted', () => {
  const s = example();
  const text = snapshotSummary(s);
  assert.ok(
    text.startsWith(
      `${s.address!.matchedAddress}, ${s.coverage.place!.name}: lot ${s.lot!.parcelExternalId}, ${s.lot!.areaSqft} sq ft, zone ${s.zones!.primary}`,
    ),
    text,
  );
  for (const k of ['maxHeightFt', 'maxHeightStoreys', 'maxFar']) {
    const v = s.envelope![k];
    if (v) assert.ok(text.includes(`${k} ${valueWords(v).line}`), `${k} named with its status in words`);
  }
  const counts = new Map<string, number>();
  for (const v of Object.values(s.envelope!)) counts.set(v.status, (counts.get(v.status) ?? 0) + 1);
  const listed = /Envelope statuses: ([^.]+)\./.exec(text)![1]!.split(', ');
  assert.deepEqual(
    listed,
    [...counts].map(([st, n]) => `${n} ${st}`),
    'each status once, with its count, in envelope order',
  );
  assert.equal(
    listed.reduce((sum, x) => sum + Number(x.split(' ')[0]), 0),
    Object.keys(s.envelope!).length,
  );
  assert.doesNotMatch(text, /confidence/, 'an exact address-table match says nothing about confidence');
  assert.match(text, /The structured content has each value's status, condition, notes and sources\.$/);
});

test('unknown is never a number, no limit is said in words, and an inexact match names its confidence and why', () => {
  const s = example();
  s.envelope!['maxHeightFt'] = { value: null, status: 'not_extracted' };
  s.envelope!['maxFar'] = { value: null, status: 'no_limit_in_bylaw' };
  s.address = { ...s.address!, matchType: 'street_interpolation', confidence: 0.6, warnings: ['No 12 is not in the address table.', 'another warning'] };
  const text = snapshotSummary(s);
  assert.match(text, /maxHeightFt Unknown — unknown: not extracted from the bylaw: the analysis cannot compute on it[;.]/);
  assert.match(text, /maxFar No limit in the bylaw — the bylaw sets no limit: the analysis treats it as no limit[;.]/);
  assert.match(
    text,
    /We are not sure this is the lot you meant\. The address is not tied to a lot in any table; the lot was located by its number along the street \(match confidence 0\.6, below 0\.8\)\. No 12 is not in the address table\. Check the lot/,
  );
  assert.doesNotMatch(text, /another warning/, "only the geocoder's own reason");
});

test('a snapshot with no headline value and a split lot with overlays', () => {
  const s = example();
  for (const k of ['maxHeightFt', 'maxHeightStoreys', 'maxFar']) delete s.envelope![k];
  s.zones = {
    ...s.zones!,
    splitLot: true,
    districts: [
      { code: 'C-1', name: null, share: 0.6 },
      { code: 'B', name: null, share: 0.4 },
    ],
    overlays: [{ code: 'AOD-1', name: null, share: 1, governingSection: null }],
  };
  const text = snapshotSummary(s);
  assert.match(text, /zone C-1 \(split lot: C-1, B\), overlays AOD-1\. Envelope statuses:/);
});

test('not answered: the coverage status and message, and at most three suggestions', () => {
  const text = snapshotSummary({
    answered: false,
    coverage: { status: 'geocode_failed', eligibilityKnown: true, message: 'No such number.' },
    suggestions: ['1 A St', '2 A St', '3 A St', '4 A St'],
    sources: {},
    generatedAt: '2026-11-23T00:00:00.000Z',
  } as Snapshot);
  assert.equal(text, 'Not answered (coverage geocode_failed): No such number. Did you mean: 1 A St; 2 A St; 3 A St?');
});

test("a sure but inexact match says how the lot was found in the page's words, with the geocoder's reason", () => {
  const s = example();
  s.address = { ...s.address!, matchType: 'assessor_table', confidence: 0.9, warnings: ['Not in the address table; found in the assessor table.'] };
  const text = snapshotSummary(s);
  assert.ok(
    text.includes(
      `Address ${MATCH_HOW.assessor_table} (match confidence 0.9). Not in the address table; found in the assessor table. Confirm the lot before relying on it.`,
    ),
    text,
  );
});

test('the lot-area disagreement is in the first block, word for word as the answer (and the page) carries it, after the match and before the values', () => {
  const s = example();
  const warning = areaWarning({ area_m2: 1000, attrs: { assessor: { landAreaSqft: 20000 } } })!;
  assert.ok(warning);
  s.address = { ...s.address!, matchType: 'street_interpolation', confidence: 0.6, warnings: [warning, 'Overlay note.'] };
  const text = snapshotSummary(s);
  const doubt = matchDoubt(s.address)!;
  assert.equal(text.split(warning).length, 2, 'said once (not also as the reason for the match)');
  assert.ok(text.indexOf(doubt.headline) < text.indexOf(warning) && text.indexOf(warning) < text.indexOf('Envelope statuses:'), text);
  assert.doesNotMatch(text, /Overlay note/, 'only the warnings that change how the answer may be used');
  assert.deepEqual(
    answerWarnings(s).map((w) => w.kind),
    ['uncertain_match', 'lot_area'],
  );
  // An exact match with the same warning still says it.
  s.address = { ...s.address, matchType: 'address_table', confidence: 1 };
  assert.ok(snapshotSummary(s).includes(` ${warning} `));
});

test('an answer from a place that is not live says so first, with the status label the page prints and the coverage message', () => {
  const s = example();
  s.coverage = { ...s.coverage, status: 'planned_not_live', message: 'Cambridge is planned but not live: its districts are catalogued.' };
  const text = snapshotSummary(s);
  assert.ok(text.includes(`Coverage: ${STATUS_LABELS.planned_not_live}. Cambridge is planned but not live: its districts are catalogued. `), text);
});

test('a warning is one more rule: the summary renders whatever the list holds, in order', () => {
  const s = example();
  const stated = (x: Snapshot) => (x.answered ? { kind: 'district_stated', text: 'The district was stated by the caller, not found from the lot.' } : null);
  ANSWER_WARNING_RULES.push(stated);
  try {
    assert.match(snapshotSummary(s), /\. The district was stated by the caller, not found from the lot\. /);
  } finally {
    ANSWER_WARNING_RULES.pop();
  }
  assert.doesNotMatch(snapshotSummary(s), /stated by the caller/);
});
