import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb } from '../../test/support/harness.ts';
import { copyTextLine } from './database.ts';

test('copyTextLine escapes the COPY text format and writes NULL as \\N', () => {
  assert.equal(copyTextLine(['a', null, 1.5, 'tab\there', 'nl\nx', 'back\\slash', 'cr\r']), 'a\t\\N\t1.5\ttab\\there\tnl\\nx\tback\\\\slash\tcr\\r');
});

test('bulk rows round-trip exactly through copyRows (PGlite) or are refused for lack of it (PostgreSQL)', async () => {
  const { db, close } = await createTestDb();
  try {
    await db.exec('CREATE TABLE t (id integer, s text, j json, b box, f double precision)');
    const rows = [
      [1, 'plain', '{"a":[1,2]}', '(1,2),(0,0)', 1.25],
      [2, 'tab\there, newline\nthere, back\\slash, "quotes", é, 中', '{"s":"x\\\\y\\n"}', '(3,4),(1,1)', -0.5],
      [3, null, null, null, null],
    ];
    if (!db.copyRows) {
      assert.equal(db.kind, 'postgres');
      return;
    }
    assert.equal(await db.copyRows('t', ['id', 's', 'j', 'b', 'f'], rows), 3);
    const back = await db.query<{ id: number; s: string | null; j: unknown; b: string | null; f: number | null }>('SELECT id, s, j, b::text AS b, f FROM t ORDER BY id');
    assert.equal(back.length, 3);
    assert.equal(back[1]!.s, rows[1]![1]);
    assert.deepEqual(back[1]!.j, { s: 'x\\y\n' });
    assert.deepEqual(back[0]!.j, { a: [1, 2] });
    assert.equal(back[1]!.f, -0.5);
    assert.equal(back[2]!.s, null);
    assert.equal(back[2]!.j, null);
    await assert.rejects(db.copyRows('t; DROP TABLE t', ['id'], [[1]]), /bad identifier/);
  } finally {
    await close();
  }
});

test('a PGlite data directory is held by one process at a time; a stale lock is taken over', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { openDatabase } = await import('./database.ts');
  const { SitelineError } = await import('../core/errors.ts');
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-lock-')), 'pgdata');
  try {
    const first = await openDatabase({ pgliteDir: dir });
    await assert.rejects(openDatabase({ pgliteDir: dir }), (e: unknown) => e instanceof SitelineError && e.code === 'unavailable' && /in use by another siteline process/.test(e.message));
    await first.close();
    // A lock naming a process that no longer runs (pid 2^22 + 1 is above Linux's pid_max default).
    fs.writeFileSync(`${dir}.lock`, String(4_194_305));
    const again = await openDatabase({ pgliteDir: dir });
    assert.deepEqual(await again.query('SELECT 1 AS one'), [{ one: 1 }]);
    await again.close();
    assert.equal(fs.existsSync(`${dir}.lock`), false, 'the lock is released on close');
  } finally {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  }
});
