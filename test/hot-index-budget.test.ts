// The bounded hot index (docs/scaling.md): places' indexes share a byte budget, the least recently
// used is evicted, a cold or loading place is read through SQL, and every answer is the one the
// unbounded index (and SQL, the truth) gives; a re-import while a place's index is warm or evicted
// never leaves a stale answer. Behaviour only: no timing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlacesDb, testCtx, type TestDb } from './support/harness.ts';
import { getPlace } from '../src/places/catalogue.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { canonicalJson } from '../src/core/canonical-json.ts';
import { hotIndexOf, placeSource, warmPlaceIndex, DEFAULT_HOT_INDEX_BUDGET_MB, type HotIndex } from '../src/geocoder/place-index.ts';
import { openContext, type AppContext } from '../src/context.ts';
import { loadSyntheticCity, sampleSyntheticAddresses, writeSyntheticPlacesDir, SYNTHETIC_PLACE_ID } from '../bench/synthetic-city.ts';
import { REPO_PLACES_DIR } from '../src/config.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Cambridge (real data, the test template) and a small synthetic city loaded through the importer's
// loaders (bench/synthetic-city.ts), in a places directory holding both places' rules
const PLACES = ['US-MA:cambridge', SYNTHETIC_PLACE_ID];
const SYNTHETIC_PARCELS = 2_000;
let placesDir: string;
let t: TestDb;
let ctx: AppContext;
/** The context's hot indexes (its budget, on/off switch and counters). */
let index: HotIndex;
/** Per place, a sample of its addresses as a person types them. */
const sample = new Map<string, string[]>();

before(async () => {
  t = await createPlacesDb(['cambridge-ma']);
  placesDir = writeSyntheticPlacesDir(fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-hot-budget-')));
  fs.cpSync(path.join(REPO_PLACES_DIR, 'cambridge-ma'), path.join(placesDir, 'cambridge-ma'), { recursive: true });
  await loadSyntheticCity(t.db, SYNTHETIC_PARCELS);
  ctx = testCtx(t.db, { placesDir });
  index = hotIndexOf(ctx);
  const cambridge = (await getPlace({ db: t.db }, PLACES[0]!))!;
  const rows = await t.db.query<{ full_address: string }>(
    `SELECT full_address FROM addresses WHERE place_id = $1 AND parcel_ext_id IS NOT NULL AND row_no % 997 = 0 ORDER BY row_no LIMIT 8`,
    [PLACES[0]],
  );
  assert.equal(rows.length, 8);
  sample.set(
    PLACES[0]!,
    rows.map((r) => `${r.full_address}, ${cambridge.name}, ${cambridge.region}`),
  );
  sample.set(PLACES[1]!, sampleSyntheticAddresses(SYNTHETIC_PARCELS, 8));
});
after(async () => {
  await t.close();
  fs.rmSync(placesDir, { recursive: true, force: true });
});

async function answer(address: string): Promise<string> {
  const s = (await getFeasibilitySnapshot(ctx, address)) as unknown as Record<string, unknown>;
  delete s['generatedAt'];
  return canonicalJson(s);
}

async function warm(id: string) {
  return warmPlaceIndex(ctx, (await getPlace({ db: t.db }, id))!);
}

/**
 * Every sampled address's answer, places taking turns two addresses at a time: the first read of a
 * turn may find the place cold (evicted by the other's turn) and start its load, which the test lets
 * finish; the second is then read from memory.
 */
async function answersInterleaved(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const lists = PLACES.map((id) => sample.get(id)!);
  for (let i = 0; i < Math.max(...lists.map((l) => l.length)); i += 2) {
    for (const [k, l] of lists.entries()) {
      for (const a of l.slice(i, i + 2)) {
        out.set(a, await answer(a));
        await warm(PLACES[k]!);
      }
    }
  }
  return out;
}

test('under a budget that holds one place, places are evicted and reloaded, and every answer is the unbounded one', async () => {
  // the truth: SQL alone
  index.setEnabled(false);
  const truth = await answersInterleaved();
  assert.ok([...truth.values()].filter((v) => v.includes('"answered":true')).length >= 10, 'the sample is mostly answered');
  index.setEnabled(true);

  // unbounded: both places held
  index.setBudget(1_000_000);
  const sizes = await Promise.all(PLACES.map(async (id) => (await warm(id))!.bytes));
  assert.ok(
    sizes.every((b) => b > 100_000),
    `estimated sizes ${sizes.join(', ')}`,
  );
  index.resetStats();
  const unbounded = await answersInterleaved();
  assert.deepEqual(unbounded, truth);
  const u = index.stats();
  assert.equal(u.places, 2);
  assert.equal(u.evictions, 0);
  assert.equal(u.misses, 0, 'both places warm: every read a hit');

  // a budget that holds the larger place but not both: each place's turn evicts the other
  const budgetMb = (Math.max(...sizes) + Math.min(...sizes) / 2) / (1024 * 1024);
  index.setBudget(budgetMb);
  const afterShrink = index.stats();
  assert.equal(afterShrink.places, 1, 'shrinking the budget evicts at once');
  assert.ok(afterShrink.bytes <= afterShrink.budgetBytes);
  index.resetStats();
  const bounded = await answersInterleaved();
  assert.deepEqual(bounded, truth, 'byte-identical to the unbounded index');
  const s = index.stats();
  assert.ok(s.evictions >= 4, `evictions: ${s.evictions}`);
  assert.ok(s.loads >= 4, `loads: ${s.loads}`);
  assert.ok(s.hits >= 4 && s.misses >= 4, `hits ${s.hits}, misses ${s.misses}`);
  assert.ok(s.misses > 0, 'cold places were read through SQL');
  assert.ok(s.hits > 0, 'a warm place was read from memory');
  assert.ok(s.places <= 1 && s.bytes <= s.budgetBytes, `held ${s.places} places, ${s.bytes} bytes of ${s.budgetBytes}`);

  // a budget smaller than any place: nothing is kept, every read goes to SQL, answers unchanged
  index.setBudget(0.01);
  index.resetStats();
  const none = await answersInterleaved();
  assert.deepEqual(none, truth);
  const n = index.stats();
  assert.equal(n.places, 0);
  assert.equal(n.bytes, 0);
  assert.equal(n.hits, 0);
  assert.ok(n.oversize >= 2, `not kept for being larger than the budget: ${n.oversize}`);
});

test('a re-import while the place is warm, or after it was evicted, never leaves a stale answer', async () => {
  index.setBudget(1_000_000);
  const [id, other] = PLACES as [string, string];
  const address = sample.get(id)![0]!;
  const place = (await getPlace({ db: t.db }, id))!;
  assert.ok(await warm(id));
  const row = (
    await t.db.query<{ row_no: number; street_key: string; number: number; full_address: string }>(
      `SELECT row_no, street_key, number, full_address FROM addresses WHERE place_id = $1 AND full_address || ', ' || $2 || ', ' || $3 = $4`,
      [id, place.name, place.region, address],
    )
  )[0]!;
  assert.ok(row, 'the sampled address is a row');
  const src = await placeSource(ctx, place);
  assert.equal(src.kind, 'memory');
  const lotBefore = (await src.addressRows(row.street_key, row.number)).find((r) => r.row_no === row.row_no)!.parcel_ext_id;
  assert.ok(lotBefore);

  // what an import does: rewrite the place's rows and its import version in one transaction, then open
  // the context's placeChanged door: the hot index and the catalogue rows are forgotten (src/importer/import-place.ts)
  const reimport = async () => {
    await t.db.transaction(async (tx) => {
      await tx.query(`UPDATE addresses SET parcel_ext_id = NULL WHERE place_id = $1 AND row_no = $2`, [id, row.row_no]);
      await tx.query(`UPDATE parcels SET area_m2 = area_m2 + 100 WHERE place_id = $1 AND parcel_ext_id = $2`, [id, lotBefore]);
      await tx.query(`UPDATE places SET imported_at = imported_at + interval '1 second' WHERE place_id = $1`, [id]);
    });
    ctx.caches.placeChanged(id);
  };
  const warmAnswer = await answer(address);
  await reimport();
  const fresh = (await getPlace({ db: t.db }, id))!;
  assert.notEqual(fresh.importedAt, place.importedAt);
  // cold after the re-import: SQL answers the new rows; then the reloaded index does too
  const viaSql = await placeSource(ctx, fresh);
  assert.equal(viaSql.kind, 'sql');
  const reloaded = (await warm(id))!;
  assert.equal(reloaded.version, fresh.importedAt);
  for (const s of [viaSql, reloaded]) assert.equal((await s.addressRows(row.street_key, row.number)).find((r) => r.row_no === row.row_no)!.parcel_ext_id, null);
  // the stale record (a catalogue read before the import) never reads the old index back, and leaves the new one held
  assert.equal((await placeSource(ctx, place)).kind, 'sql');
  assert.equal(await placeSource(ctx, fresh), reloaded);
  const afterAnswer = await answer(address);
  index.setEnabled(false);
  assert.equal(afterAnswer, await answer(address), 'the same answer as SQL alone after the re-import');
  index.setEnabled(true);
  assert.notEqual(afterAnswer, warmAnswer, 'the change shows in the answer');

  // evicted, then re-imported: the reload reads the new version
  const sizes = [(await warm(id))!.bytes, (await warm(other))!.bytes];
  index.setBudget(Math.max(...sizes) / (1024 * 1024)); // the place loaded last (the other one) fits alone
  assert.equal((await placeSource(ctx, (await getPlace({ db: t.db }, id))!)).kind, 'sql', `${id} was evicted by ${other}'s load`);
  await t.db.transaction(async (tx) => {
    await tx.query(`UPDATE addresses SET parcel_ext_id = $3 WHERE place_id = $1 AND row_no = $2`, [id, row.row_no, lotBefore]);
    await tx.query(`UPDATE parcels SET area_m2 = area_m2 - 100 WHERE place_id = $1 AND parcel_ext_id = $2`, [id, lotBefore]);
    await tx.query(`UPDATE places SET imported_at = imported_at + interval '1 second' WHERE place_id = $1`, [id]);
  });
  ctx.caches.placeChanged(id);
  const back = (await warm(id))!;
  assert.equal(back.addressRows(row.street_key, row.number).find((r) => r.row_no === row.row_no)!.parcel_ext_id, lotBefore);
  assert.equal(await answer(address), warmAnswer, 'the first answer again, from the reloaded index');
});

test('concurrent first reads of a cold place are answered through SQL and share one load', async () => {
  index.setBudget(1_000_000);
  const id = PLACES[1]!;
  index.placeChanged(id);
  index.resetStats();
  const place = (await getPlace({ db: t.db }, id))!;
  const sources = await Promise.all(Array.from({ length: 5 }, () => placeSource(ctx, place)));
  assert.ok(sources.every((s) => s.kind === 'sql'));
  const loaded = await Promise.all(Array.from({ length: 3 }, () => warmPlaceIndex(ctx, place)));
  assert.ok(loaded[0] && loaded.every((ix) => ix === loaded[0]));
  const s = index.stats();
  assert.equal(s.loads, 1);
  assert.equal(s.misses, 5);
  assert.equal(await placeSource(ctx, place), loaded[0]);
  assert.equal(index.stats().hits, 1);
});

test('a context opened for one answer (hotIndex: false, as `siteline check --local` opens it) reads through SQL, loads no index, and answers the same', async () => {
  index.setEnabled(true);
  index.setBudget(DEFAULT_HOT_INDEX_BUDGET_MB);
  const address = sample.get(PLACES[0]!)![0]!;
  const warmAnswer = await answer(address); // the hot index's (or SQL's while it loads): the same
  for (const id of PLACES) index.placeChanged(id);
  index.resetStats();
  const oneShot = await openContext(ctx.config, { db: t.db, logger: ctx.logger, hotIndex: false });
  const s = (await getFeasibilitySnapshot(oneShot, address)) as unknown as Record<string, unknown>;
  delete s['generatedAt'];
  assert.equal(canonicalJson(s), warmAnswer);
  // a read that went to the hot index would have counted a miss (and started a load) or a hit in the one-shot context's index
  const stats = hotIndexOf(oneShot).stats();
  assert.deepEqual({ hits: stats.hits, misses: stats.misses, loads: stats.loads, places: stats.places }, { hits: 0, misses: 0, loads: 0, places: 0 });
  index.setEnabled(true);
});
