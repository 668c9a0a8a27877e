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
  const chicago = [
    ...readCsvRows(fs.readFileSync(path.join(data, 'chicago-il/resources/import/zoning-code-summary-district-types.csv'), 'utf8'), { header: true }),
  ];
  assert.equal(chicago.length, 67);
  assert.ok(chicago.every((r) => r.problem === undefined));
  assert.ok(
    chicago.some((r) => Object.values(r.values).some((v) => v.includes('\n'))),
    'a quoted field keeps its line break',
  );
  assert.ok(chicago.some((r) => r.values['district_type_code'] === 'RS-3'));
  const columns = [
    'address_id',
    'street_number',
    'street_number_suffix',
    'street_name',
    'street_suffix',
    'dir_suffix',
    'full_address',
    'poi_name',
    'poi_type_desc',
    'MapLot',
    'BldgID',
  ];
  const cam = [
    ...readCsvRows(fs.readFileSync(path.join(data, 'cambridge-ma/Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv'), 'utf8'), {
      header: false,
      columns,
    }),
  ];
  assert.equal(cam.length, 24099);
  assert.equal(cam[0]!.values['address_id'], '14754', 'the BOM is not part of the first id');
  assert.ok(cam.every((r) => r.problem === undefined));
});

test('csv: an unterminated quote rejects its own line only, named by line; reading resumes on the next line', () => {
  const text = 'id,name,lot\n1,"Acorn St,97-1\n2,Bay St,97-2\n3,"Cay St",97-3\n';
  const rows = [...readCsvRows(text, { header: true, file: 'a.csv' })];
  assert.equal(rows.length, 3);
  assert.equal(rows[0]!.problemReason, 'malformed CSV record');
  assert.match(rows[0]!.problem!, /^a\.csv line 2: /);
  assert.deepEqual(rows[1]!.values, { id: '2', name: 'Bay St', lot: '97-2' });
  assert.equal(rows[1]!.line, 3);
  assert.deepEqual(rows[2]!.values, { id: '3', name: 'Cay St', lot: '97-3' });
  // A stray quote that closes on a later line but leaves the wrong field count is caught too.
  const later = [...readCsvRows('a,b,c\n1,"x,2\n3,4",5,9\n6,7,8\n', { header: true })];
  assert.equal(later.length, 3);
  assert.match(later[0]!.problem!, /^line 2: a quoted field runs over 2 lines/);
  assert.equal(later[1]!.problem, 'line 3: has 4 fields, expected 3');
  assert.deepEqual(later[2]!.values, { a: '6', b: '7', c: '8' });
});

test('csv: a NUL byte rejects the row, naming file, line and field', () => {
  const rows = [...readCsvRows('id,name\n1,ok\n2,bad\u0000name\n3,fine\n', { header: true, file: 'n.csv' })];
  assert.equal(rows[1]!.problemReason, 'NUL byte in a field');
  assert.equal(rows[1]!.problem, 'n.csv line 3: field name holds a NUL byte');
  assert.equal(rows[2]!.problem, undefined);
});

test('csv: countPhysicalLines', async () => {
  const { countPhysicalLines } = await import('./csv.ts');
  assert.equal(countPhysicalLines(''), 0);
  assert.equal(countPhysicalLines('a\nb'), 2);
  assert.equal(countPhysicalLines('a\r\nb\r\n'), 2);
});
