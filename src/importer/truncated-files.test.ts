// A file cut short is named "truncated", an empty one "no features"; a layer that lost more than its
// maxShrinkShare of the recorded counts is refused, and only --accept-shrink lets it through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvTruncation, readCsvRows } from './readers/csv.ts';
import { jsonProblem } from './readers/geojson.ts';
import { shapefileTruncation } from './readers/shapefile.ts';
import { manifestSchema, type ManifestSource } from '../places/manifest.ts';
import { describeRefusal, isBlocking, shrinkRefusals } from './place-gate.ts';

test('truncated: a CSV ending mid-record, JSON cut before its closing brace, a shapefile shorter than its header', () => {
  const whole = 'ID,ADDR,X\n1,2 ELM ST,5\n2,4 ELM ST,6\n';
  const rows = (t: string) => [...readCsvRows(t, { header: true, file: 'a.csv' })];
  assert.equal(csvTruncation(whole, rows(whole), 'a.csv'), null);
  assert.equal(csvTruncation(whole.trimEnd(), rows(whole.trimEnd()), 'a.csv'), null, 'no line end, but the last record is whole');
  const cut = whole.slice(0, whole.length - 5);
  assert.match(csvTruncation(cut, rows(cut), 'a.csv')!, /^a\.csv: truncated: the file ends mid-record at line 3 \(has 2 fields, expected 3, and no line end\)/);
  const quoted = 'ID,ADDR\n1,"2 ELM';
  assert.match(csvTruncation(quoted, rows(quoted), 'a.csv')!, /truncated: the file ends mid-record at line 2/);
  const doc = JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { ZONE: 'R-1' }, geometry: null }] });
  const err = (t: string) => {
    try {
      JSON.parse(t);
    } catch (e) {
      return e as Error;
    }
    throw new Error('parsed');
  };
  const half = doc.slice(0, doc.length / 2);
  assert.match(jsonProblem(half, 'z.geojson', err(half)), /^z\.geojson: truncated: the file ends mid-record after \d+ bytes/);
  assert.match(jsonProblem('{"type": x}', 'z.geojson', err('{"type": x}')), /^z\.geojson: not valid JSON/);
  assert.doesNotMatch(jsonProblem('{"owner": SMITH JOHN}', 'z.geojson', err('{"owner": SMITH JOHN}')), /SMITH/, "the parser's excerpt of the text is left out");
  assert.equal(jsonProblem('  ', 'z.geojson', err('  ')), 'z.geojson: empty file (no features)');
  const shp = Buffer.alloc(200);
  shp.writeInt32BE(9994, 0);
  shp.writeInt32BE(100, 24); // 200 bytes
  const dbf = Buffer.alloc(32 + 33 + 2 * 10);
  dbf.writeUInt32LE(2, 4);
  dbf.writeUInt16LE(65, 8);
  dbf.writeUInt16LE(10, 10);
  assert.equal(shapefileTruncation(shp, dbf, 'p.shp'), null);
  assert.match(shapefileTruncation(shp.subarray(0, 150), dbf, 'p.shp')!, /^p\.shp: truncated: the \.shp header says 200 bytes, the file holds 150/);
  assert.match(shapefileTruncation(shp, dbf.subarray(0, 70), 'p.shp')!, /truncated: the \.dbf header says 2 records \(85 bytes\), the file holds 70/);
});

function source(extra: Record<string, unknown>): ManifestSource {
  const m = manifestSchema.parse({
    slug: 't',
    geoDivisionId: 'US-MA:t',
    name: 'T',
    region: 'MA',
    country: 'US',
    status: 'planned_not_live',
    bbox: [0, 0, 1, 1],
    sourceFolder: 't',
    rulesFile: 'rules.json',
    sources: [
      {
        id: 'addresses',
        name: 'A',
        file: 'a.csv',
        sha256: 'a'.repeat(64),
        vintage: 'v',
        licence: 'l',
        attribution: 'a',
        format: 'csv',
        load: { target: 'addresses', fields: { oneLine: 'ADDR' } },
        ...extra,
      },
    ],
  });
  return m.sources[0]!;
}

test('shrink: beyond maxShrinkShare of the recorded rows or features is refused, naming both counts and the setting; growth never', () => {
  const s = source({ counts: { rows: 100, features: 90 } });
  assert.deepEqual(shrinkRefusals(s, { rowsRead: 96, rowsLoaded: 86 }), [], 'within 5 %');
  assert.deepEqual(shrinkRefusals(s, { rowsRead: 500, rowsLoaded: 500 }), [], 'growth');
  const [rows, features] = shrinkRefusals(s, { rowsRead: 50, rowsLoaded: 40 });
  assert.equal(
    describeRefusal(rows!),
    'addresses (a.csv) shrank: 50 rows, 100 recorded (lost 50, 50.0 %), more than the 5.0 % allowed [governed by sources[addresses].maxShrinkShare = 0.05 (the default); or --accept-shrink "<reason>"]',
  );
  assert.match(features!.problem, /40 features, 90 recorded \(lost 50, 55\.6 %\)/);
  assert.ok(isBlocking(rows!, { force: true }), '--force does not override a shrink');
  assert.ok(!isBlocking(rows!, { acceptShrink: 'the town dropped a street' }));
  assert.deepEqual(shrinkRefusals(source({ counts: { rows: 100, features: 90 }, maxShrinkShare: 0.6 }), { rowsRead: 50, rowsLoaded: 40 }), []);
  assert.deepEqual(shrinkRefusals(source({}), { rowsRead: 1, rowsLoaded: 1 }), [], 'no counts recorded: nothing to compare');
});
