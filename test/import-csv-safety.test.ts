// A malformed line in a shipped CSV (an unterminated quote, a NUL byte) is rejected alone, named by
// file and line, and the rows after it load; a source whose rejected share or row count is beyond the
// manifest's threshold is refused and the place keeps its previous data. The modified copies are
// generated in a temporary directory by the test (nothing from the data pack is copied into the repo).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, SHARED_DATA, createTestDb, testCtx } from './support/harness.ts';
import { importPlace } from '../src/importer/import-place.ts';

const SLUG = 'cambridge-ma';
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'places', SLUG, 'manifest.json'), 'utf8'));
const source = manifest.sources.find((s: { id: string }) => s.id === 'addresses');
const original = fs.readFileSync(path.join(SHARED_DATA, manifest.sourceFolder, source.file), 'utf8');
const lines = original.split('\n');
const ACORN_15 = lines.findIndex((l) => l.includes(',15 Acorn St,'));

/** A places dir and a source dir holding only the Cambridge address table, as `text`, with `extra` manifest fields. */
function fixture(text: string, extra: Record<string, unknown> = {}): { placesDir: string; sourceDir: string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-csv-'));
  const placesDir = path.join(tmp, 'places');
  const sourceDir = path.join(tmp, 'data');
  fs.mkdirSync(path.join(placesDir, SLUG), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'places', SLUG, manifest.rulesFile), path.join(placesDir, SLUG, manifest.rulesFile));
  const file = path.join(sourceDir, manifest.sourceFolder, source.file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  const sha256 = crypto.createHash('sha256').update(text).digest('hex');
  fs.writeFileSync(path.join(placesDir, SLUG, 'manifest.json'), JSON.stringify({ ...manifest, documents: [], sources: [{ ...source, sha256, ...extra }] }));
  return { placesDir, sourceDir };
}

test('an unterminated quote rejects one line, named by file and line; 15 Acorn St keeps its own lot', async () => {
  assert.ok(ACORN_15 > 1);
  const broken = [...lines];
  // The line before 15 Acorn St gets an opening quote that never closes.
  broken[ACORN_15 - 1] = broken[ACORN_15 - 1]!.replace(/,(\d+ Acorn St),/, ',"$1,');
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    const report = await importPlace(ctx, SLUG, { ...fixture(broken.join('\n')), quiet: true });
    const src = report.sources.find((s) => s.id === 'addresses')!;
    const expected = lines.filter((l) => l.replace(/[,\s]/g, '') !== '').length;
    assert.equal(src.rowsRead, expected, 'every record is read');
    const malformed = src.rejects.find((r) => r.reason === 'malformed CSV record');
    assert.equal(malformed?.count, 1, JSON.stringify(src.rejects));
    assert.match(malformed!.examples[0]!, new RegExp(`Master_Address_Database_with_MapLot_and_BldgID\\.csv line ${ACORN_15}: `));
    const acorn = await t.db.query<{ parcel_ext_id: string }>(`SELECT parcel_ext_id FROM addresses WHERE full_address = '15 Acorn St'`);
    assert.deepEqual(
      acorn.map((r) => r.parcel_ext_id),
      ['97-128'],
    );
    assert.ok(
      src.notes.some((n) => n.startsWith(`${lines.length - (original.endsWith('\n') ? 1 : 0)} physical lines`)),
      src.notes.join('; '),
    );
  } finally {
    await t.close();
  }
});

test('a NUL byte rejects its row with file and line; it does not abort the import', async () => {
  const broken = [...lines];
  broken[ACORN_15] = broken[ACORN_15]!.replace('Acorn St', 'Acorn\u0000St');
  const t = await createTestDb();
  try {
    const report = await importPlace(testCtx(t.db), SLUG, { ...fixture(broken.join('\n')), quiet: true });
    const nul = report.sources[0]!.rejects.find((r) => r.reason === 'NUL byte in a field');
    assert.equal(nul?.count, 1);
    assert.match(nul!.examples[0]!, new RegExp(`line ${ACORN_15 + 1}: field full_address holds a NUL byte`));
  } finally {
    await t.close();
  }
});

test('beyond the rejected share or the expected row count, the import is refused and the previous data stays', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    await importPlace(ctx, SLUG, { ...fixture(original), quiet: true });
    const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM addresses');
    assert.ok(before[0]!.n > 20_000);

    // Every eighth line loses its closing quote: 12 % rejected, over the default 10 %.
    const mangled = lines.map((l, i) => (i % 8 === 3 ? l.replace(/^(\d+),/, '$1,"') : l)).join('\n');
    await assert.rejects(importPlace(ctx, SLUG, { ...fixture(mangled), quiet: true }), (err: Error) => {
      assert.match(
        err.message,
        /refusing to import:\n {2}- addresses .*rows rejected .*above the limit of 10\.0 %.*\[governed by sources\[addresses\]\.maxRejectedShare = 0\.1 \(the default\); or --force\]/,
      );
      assert.match(err.message, /previous data stays/);
      return true;
    });
    // A truncated file: within the rejected share, but far from the manifest's expected rows.
    const truncated = lines.slice(0, 12_000).join('\n');
    await assert.rejects(
      importPlace(ctx, SLUG, { ...fixture(truncated, { expectedRows: 24_099 }), quiet: true }),
      /12000 rows read, the manifest expects 24099/,
    );
    const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM addresses');
    assert.equal(after[0]!.n, before[0]!.n, 'the previous addresses are all still there');
    // The same file passes when the manifest says so.
    const ok = await importPlace(ctx, SLUG, { ...fixture(truncated, { expectedRows: 12_000 }), quiet: true });
    assert.equal(ok.sources[0]!.rowsRead, 12_000);
  } finally {
    await t.close();
  }
});
