import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsvRecords, readCsvRows } from './csv.ts';

test('csv: BOM dropped, quoted delimiters, doubled quotes and line breaks inside quotes, CRLF', () => {
  const text = '\uFEFFa,b,c\r\n1,"x, y","he said ""hi"""\r\n2,"line1\nline2",\r\n';
  const recs = [...parseCsvRecords(text)];
  assert.deepEqual(recs, [
    ['a', 'b', 'c'],
    ['1', 'x, y', 'he said "hi"'],
    ['2', 'line1\nline2', ''],
  ]);
});

test('csv: a file without a header takes the given column names; blank and all-empty rows are skipped', () => {
  const rows = [...readCsvRows('\uFEFF14754,14,,ABERDEEN\n\n,,,\n3185,16,A,ABERDEEN', { header: false, columns: ['id', 'num', 'suffix', 'street'] })];
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0]!.values, { id: '14754', num: '14', suffix: '', street: 'ABERDEEN' });
  assert.equal(rows[1]!.values['suffix'], 'A');
  assert.equal(rows[1]!.recordNo, 3); // records, not lines: the blank line is not a record
});

test('csv: a record with the wrong field count is flagged, not dropped', () => {
  const rows = [...readCsvRows('a,b\n1,2,3\n4,5', { header: true })];
  assert.equal(rows.length, 2);
  assert.match(rows[0]!.problem ?? '', /3 fields, expected 2/);
  assert.equal(rows[1]!.problem, undefined);
});

test('csv: an unterminated quote is an error', () => {
  assert.throws(() => [...parseCsvRecords('a,"b\n')], /inside a quoted field/);
});

test('csv on the data pack: Chicago (CRLF, LFs inside quotes) and Cambridge (no header, BOM)', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const data = path.resolve(import.meta.dirname, '../../../../shared/data');
  const chicago = [...readCsvRows(fs.readFileSync(path.join(data, 'chicago-il/resources/import/zoning-code-summary-district-types.csv'), 'utf8'), { header: true })];
  assert.equal(chicago.length, 67);
  assert.ok(chicago.every((r) => r.problem === undefined));
  assert.ok(chicago.some((r) => Object.values(r.values).some((v) => v.includes('\n'))), 'a quoted field keeps its line break');
  assert.ok(chicago.some((r) => r.values['district_type_code'] === 'RS-3'));
  const columns = ['address_id', 'street_number', 'street_number_suffix', 'street_name', 'street_suffix', 'dir_suffix', 'full_address', 'poi_name', 'poi_type_desc', 'MapLot', 'BldgID'];
  const cam = [...readCsvRows(fs.readFileSync(path.join(data, 'cambridge-ma/Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv'), 'utf8'), { header: false, columns })];
  assert.equal(cam.length, 24099);
  assert.equal(cam[0]!.values['address_id'], '14754', 'the BOM is not part of the first id');
  assert.ok(cam.every((r) => r.problem === undefined));
});
