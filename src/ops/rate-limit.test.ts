// The database-backed fixed-window limiter, on PGlite and (with DATABASE_URL) PostgreSQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../clock.ts';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { LOCATION_LIMIT, normaliseIp, takeLocationProbe, takeRateLimit } from './rate-limit.ts';

test('30 per window per IP, a reset time inside the window, a fresh budget in the next window', async () => {
  const t = await createTestDb();
  try {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 10, 0, 15));
    const ctx = testCtx(t.db, {}, clock);
    for (let i = 1; i <= 30; i++) {
      const d = await takeLocationProbe(ctx, '203.0.113.7');
      assert.equal(d.allowed, true);
      assert.equal(d.remaining, 30 - i);
      assert.equal(d.resetSeconds, 45);
    }
    const over = await takeLocationProbe(ctx, '203.0.113.7');
    assert.deepEqual([over.allowed, over.remaining, over.resetSeconds], [false, 0, 45]);
    assert.equal((await takeLocationProbe(ctx, '203.0.113.8')).allowed, true, 'another IP has its own budget');
    assert.equal((await takeLocationProbe(ctx, '::ffff:203.0.113.7')).allowed, false, 'an IPv4-mapped address is the same client');
    const counted = await t.db.query<{ hits: number }>('SELECT hits FROM rate_limit_windows WHERE subject = $1', ['203.0.113.7']);
    assert.equal(Number(counted[0]!.hits), 30, 'refused requests do not grow the counter');
    clock.advance(45_000);
    const next = await takeLocationProbe(ctx, '203.0.113.7');
    assert.deepEqual([next.allowed, next.remaining, next.resetSeconds], [true, 29, 60]);
  } finally {
    await t.close();
  }
});

test('concurrent requests never pass more than the limit', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db, {}, new ManualClock(Date.UTC(2026, 0, 1, 10, 0, 5)));
    const results = await Promise.all(Array.from({ length: 60 }, () => takeRateLimit(ctx, LOCATION_LIMIT, 'burst')));
    assert.equal(results.filter((r) => r.allowed).length, 30);
  } finally {
    await t.close();
  }
});

test('old windows are swept when a new one opens', async () => {
  const t = await createTestDb();
  try {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 10, 0, 5));
    const ctx = testCtx(t.db, {}, clock);
    await takeLocationProbe(ctx, 'a');
    clock.advance(2 * 3600_000);
    await takeLocationProbe(ctx, 'b');
    const rows = await t.db.query<{ subject: string }>('SELECT subject FROM rate_limit_windows ORDER BY subject');
    assert.deepEqual(
      rows.map((r) => r.subject),
      ['b'],
    );
  } finally {
    await t.close();
  }
});

test('normaliseIp', () => {
  assert.equal(normaliseIp('::ffff:127.0.0.1'), '127.0.0.1');
  assert.equal(normaliseIp('::1'), '::1');
  assert.equal(normaliseIp(''), 'unknown');
});
