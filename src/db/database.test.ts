import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb } from '../../test/support/harness.ts';
import { CopyLines, copyTextLine } from './database.ts';

test('copyTextLine escapes the COPY text format and writes NULL as \\N', () => {
  assert.equal(copyTextLine(['a', null, 1.5, 'tab\there', 'nl\nx', 'back\\slash', 'cr\r']), 'a\t\\N\t1.5\ttab\\there\tnl\\nx\tback\\\\slash\tcr\\r');
});

test('CopyLines.addRow writes the bytes copyTextLine writes, row by row, across the buffer growing', () => {
  const rows: unknown[][] = [
    ['a', null, 1.5, 'tab\there', 'nl\nx', 'back\\slash', 'cr\r', undefined, -0.25, 1e21, NaN, ''],
    ['é中\u{1F3E0}'.repeat(100_000), true, 42], // 1 MB of UTF-8 in one value: beyond the first buffer
    [],
    ['{"a":"ü\\"b"}', 7],
  ];
  const byLine = Buffer.from(rows.map((r) => `${copyTextLine(r)}\n`).join(''), 'utf8');
  const byRow = new CopyLines(16);
  for (const r of rows) byRow.addRow(r);
  assert.equal(byRow.rows, rows.length);
  assert.ok(byRow.takeBuffer().equals(byLine));
  // A detached batch keeps its bytes while the lines it came from take the next batch.
  byRow.addRow(['first']);
  const batch = byRow.detach();
  byRow.addRow(['second']);
  assert.equal(batch.takeBuffer().toString('utf8'), 'first\n');
  assert.equal(byRow.takeBuffer().toString('utf8'), 'second\n');
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
    const back = await db.query<{ id: number; s: string | null; j: unknown; b: string | null; f: number | null }>(
      'SELECT id, s, j, b::text AS b, f FROM t ORDER BY id',
    );
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

test('CopyLines: batches encoded as UTF-8 round-trip exactly, across the buffer growing and being reused', async () => {
  const { db, close } = await createTestDb();
  try {
    if (!db.copyRows) {
      assert.equal(db.kind, 'postgres');
      return;
    }
    await db.exec('CREATE TABLE t (id integer, s text, j json)');
    const lines = new CopyLines();
    const big = 'é中\u{1F3E0}'.repeat(200_000); // 1.4 MB of UTF-8 in one value: beyond the first buffer
    const first: unknown[][] = [
      [1, 'tab\there, back\\slash', '{"a":"ü"}'],
      [2, big, null],
    ];
    for (const r of first) lines.addRow(r);
    assert.equal(lines.rows, 2);
    assert.equal(await db.copyRows('t', ['id', 's', 'j'], lines), 2);
    assert.equal(lines.rows, 0, 'emptied by the COPY');
    lines.addRow([3, 'after the reuse', '[]']);
    assert.equal(await db.copyRows('t', ['id', 's', 'j'], lines), 1);
    assert.equal(await db.copyRows('t', ['id', 's', 'j'], lines), 0, 'an empty batch writes nothing');
    const back = await db.query<{ id: number; s: string; j: unknown }>('SELECT id, s, j FROM t ORDER BY id');
    assert.deepEqual(
      back.map((r) => r.id),
      [1, 2, 3],
    );
    assert.equal(back[0]!.s, first[0]![1]);
    assert.deepEqual(back[0]!.j, { a: 'ü' });
    assert.equal(back[1]!.s, big);
    assert.equal(back[2]!.s, 'after the reuse');
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
    await assert.rejects(
      openDatabase({ pgliteDir: dir }),
      (e: unknown) => e instanceof SitelineError && e.code === 'unavailable' && /in use by another siteline process/.test(e.message),
    );
    await first.close();
    // A lock naming a process that no longer runs (pid 2^22 + 1 is above Linux's pid_max default).
    fs.writeFileSync(`${dir}.lock`, String(4_194_305));
    const again = await openDatabase({ pgliteDir: dir });
    assert.deepEqual(await again.query('SELECT 1 AS one'), [{ one: 1 }]);
    // Started with siteline's shared buffers (PGLITE_SHARED_BUFFERS), not PGlite's 128 MB: the memory a bulk import keeps.
    assert.deepEqual(await again.query('SHOW shared_buffers'), [{ shared_buffers: '32MB' }]);
    await again.close();
    assert.equal(fs.existsSync(`${dir}.lock`), false, 'the lock is released on close');
  } finally {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  }
});

test('a prepared statement answers as query() does (arrays, NULLs, types), again and again, and fails as a DbQueryError', async () => {
  const { db, close } = await createTestDb();
  try {
    await db.exec('CREATE TABLE p (id integer PRIMARY KEY, s text, n bigint, at timestamptz)');
    const insert = 'INSERT INTO p (id, s, n, at) SELECT i, s, $2, $3 FROM unnest($1::int[], $4::text[]) AS u(i, s) RETURNING id, s, n, at';
    const run = db.prepared<{ id: number; s: string | null; n: number; at: Date }>(insert);
    assert.equal(db.prepared(insert), run, 'the same text gives the same statement');
    const at = '2026-11-22T10:00:00.000Z';
    const first = await run([[1, 2], 7, at, ['a', null]]);
    const second = await run([[3], 8, at, ["it's"]]);
    assert.deepEqual(
      [...first, ...second].map((r) => [r.id, r.s, Number(r.n), new Date(r.at).toISOString()]),
      [
        [1, 'a', 7, at],
        [2, null, 7, at],
        [3, "it's", 8, at],
      ],
    );
    const viaQuery = await db.query('SELECT id, s, n, at FROM p ORDER BY id');
    assert.deepEqual(await db.prepared('SELECT id, s, n, at FROM p ORDER BY id')([]), viaQuery);
    await assert.rejects(run([[1], 9, at, ['dup']]), (err: Error) => err.name === 'DbQueryError' && /23505/.test(err.message));
    assert.equal((await run([[4], 9, at, ['after an error']])).length, 1, 'the session is usable after a failed call');
  } finally {
    await close();
  }
});

test("a prepared statement never runs inside another caller's open transaction", async () => {
  const { db, close } = await createTestDb();
  try {
    await db.exec('CREATE TABLE q (id integer PRIMARY KEY)');
    const count = db.prepared<{ n: number }>('SELECT count(*)::int AS n FROM q');
    let read: Promise<{ n: number }[]> | undefined;
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO q (id) VALUES (1)');
        read = count([]); // issued while the transaction is open; must not see its row
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await read, [{ n: 0 }]);
  } finally {
    await close();
  }
});
