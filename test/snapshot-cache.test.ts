// The snapshot cache behind the MCP tool and the /sites page: a repeated question is answered from
// memory with the first answer (generatedAt included), until an import, a rules reload or the age
// limit; failures and other contexts never share an entry.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlacesDb, testCtx, type TestDb } from './support/harness.ts';
import { cachedSnapshot, snapshotCacheStats, SNAPSHOT_CACHE_MAX_AGE_MS } from '../src/snapshot/answer-cache.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { SitelineError } from '../src/core/errors.ts';
import { ManualClock } from '../src/clock.ts';
import type { AppContext } from '../src/context.ts';

const ADDRESS = '57 Inman St, Cambridge, MA';

describe('snapshot cache', () => {
  let tdb: TestDb;
  let ctx: AppContext;
  let clock: ManualClock;
  before(async () => {
    tdb = await createPlacesDb(['cambridge-ma']);
    clock = new ManualClock(Date.UTC(2026, 5, 1));
    ctx = testCtx(tdb.db, {}, clock);
  });
  after(async () => tdb.close());

  test('a repeated address is answered from memory with the first answer, equal to the core function', async () => {
    const before = snapshotCacheStats(ctx);
    const first = await cachedSnapshot(ctx, ADDRESS);
    clock.advance(1_000);
    const again = await cachedSnapshot(ctx, ADDRESS);
    const after = snapshotCacheStats(ctx);
    assert.equal(again, first, 'the same entry');
    assert.equal(after.misses - before.misses, 1);
    assert.equal(after.hits - before.hits, 1);
    assert.equal(again.snapshot.generatedAt, new Date(Date.UTC(2026, 5, 1)).toISOString(), 'generatedAt is when the answer was made');
    assert.equal(again.json, JSON.stringify(again.snapshot));
    clock.set(Date.UTC(2026, 5, 1));
    assert.deepEqual(JSON.parse(again.json), JSON.parse(JSON.stringify(await getFeasibilitySnapshot(ctx, ADDRESS))));
    assert.ok(Object.isFrozen(again.snapshot) && Object.isFrozen(again.snapshot.envelope), 'shared entries cannot be changed by a caller');
  });

  test('an import, a rules reload or the age limit makes the next call recompute', async () => {
    const first = await cachedSnapshot(ctx, ADDRESS);
    ctx.caches.placeChanged('US-MA:cambridge'); // what importPlace does when it ends
    const afterImport = await cachedSnapshot(ctx, ADDRESS);
    assert.notEqual(afterImport, first);
    ctx.caches.rulesReloaded();
    const afterRules = await cachedSnapshot(ctx, ADDRESS);
    assert.notEqual(afterRules, afterImport);
    clock.advance(SNAPSHOT_CACHE_MAX_AGE_MS - 1);
    assert.equal(await cachedSnapshot(ctx, ADDRESS), afterRules);
    clock.advance(1);
    const aged = await cachedSnapshot(ctx, ADDRESS);
    assert.notEqual(aged, afterRules);
    assert.equal(aged.snapshot.generatedAt, clock.now().toISOString());
  });

  test('texts the parser reads differently never share an entry', async () => {
    const plain = await cachedSnapshot(ctx, '57 Inman St Cambridge, MA');
    assert.equal(plain.snapshot.answered, true);
    await assert.rejects(
      cachedSnapshot(ctx, '57 Inman St\vCambridge, MA'),
      (e: unknown) => e instanceof SitelineError && e.code === 'bad_input',
      'a control character is refused even after a look-alike was cached',
    );
    const spaced = await cachedSnapshot(ctx, '57  Inman St Cambridge, MA');
    assert.notEqual(spaced, plain, 'another text is another entry');
  });

  test('concurrent misses share one computation; bad input is refused every time and never cached', async () => {
    const s0 = snapshotCacheStats(ctx);
    const [a, b] = await Promise.all([cachedSnapshot(ctx, '1 Brattle Sq, Cambridge, MA'), cachedSnapshot(ctx, '1 Brattle Sq, Cambridge, MA')]);
    assert.equal(a, b);
    assert.equal(snapshotCacheStats(ctx).misses - s0.misses, 1);
    for (let i = 0; i < 2; i++) {
      await assert.rejects(cachedSnapshot(ctx, '\u0000\u0001'), (e: unknown) => e instanceof SitelineError && e.code === 'bad_input');
    }
    assert.equal(snapshotCacheStats(ctx).misses - s0.misses, 3, 'each bad call was computed, none served from memory');
  });

  test('another database has its own entries', async () => {
    const other = await createPlacesDb(['cambridge-ma']);
    try {
      const octx = testCtx(other.db, {}, clock);
      const mine = await cachedSnapshot(ctx, ADDRESS);
      const theirs = await cachedSnapshot(octx, ADDRESS);
      assert.notEqual(theirs, mine);
      assert.equal(snapshotCacheStats(octx).misses, 1);
    } finally {
      await other.close();
    }
  });
});

describe('snapshot cache bounds', () => {
  test('holds at most SITELINE_SNAPSHOT_CACHE entries, least recently used out first; 0 turns it off', async () => {
    const tdb = await createPlacesDb(['cambridge-ma']);
    try {
      const small = testCtx(tdb.db, { snapshotCacheEntries: 2 });
      const a = await cachedSnapshot(small, '57 Inman St, Cambridge, MA');
      await cachedSnapshot(small, '1 Brattle Sq, Cambridge, MA');
      assert.equal(await cachedSnapshot(small, '57 Inman St, Cambridge, MA'), a, 'a is now the most recent');
      await cachedSnapshot(small, '10 Ware St, Cambridge, MA'); // evicts Brattle, the least recent
      assert.equal(snapshotCacheStats(small).entries, 2);
      assert.equal(await cachedSnapshot(small, '57 Inman St, Cambridge, MA'), a);
      const misses = snapshotCacheStats(small).misses;
      await cachedSnapshot(small, '1 Brattle Sq, Cambridge, MA');
      assert.equal(snapshotCacheStats(small).misses, misses + 1, 'the evicted address is computed again');

      const off = testCtx(tdb.db, { snapshotCacheEntries: 0 });
      const x = await cachedSnapshot(off, '57 Inman St, Cambridge, MA');
      const y = await cachedSnapshot(off, '57 Inman St, Cambridge, MA');
      assert.notEqual(x, y);
      assert.deepEqual(JSON.parse(x.json).lot, JSON.parse(y.json).lot);
    } finally {
      await tdb.close();
    }
  });
});
