// Two apps in one process (two services, each on its own database and places directory) share no cache:
// an import in one, or a rules reload in one, drops that app's caches through its context's doors
// (src/caches.ts) and leaves the other's caches, and so its answers, as they were. Before the caches hung
// off the context, the catalogue and rules generations, the hot index's per-place generations and the
// place-change listeners were the process's: an import in one app dropped the other's answers and indexes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { syntheticPlace } from './support/synthetic-place.ts';
import { importPlace } from '../src/importer/import-place.ts';
import { cachedSnapshot } from '../src/snapshot/answer-cache.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { getPlace } from '../src/places/catalogue.ts';
import { hotIndexOf, placeSource, warmPlaceIndex } from '../src/geocoder/place-index.ts';
import { loadPlaceRules } from '../src/rules/load-rules.ts';
import { canonicalJson } from '../src/core/canonical-json.ts';
import type { AppContext } from '../src/context.ts';

const CAMBRIDGE = '11 Acorn St, Cambridge, MA';
const SYNTHETIC = '3 Row 2 St, Synthetic, MA';
let work: string;
let synthetic: ReturnType<typeof syntheticPlace>;
let a: TestServer;
let b: TestServer;

/** An app of its own: Cambridge (the test template) and the synthetic place, imported here, in a places directory of its own. */
async function app(name: string): Promise<TestServer> {
  const placesDir = path.join(work, `places-${name}`);
  fs.cpSync(synthetic.placesDir, placesDir, { recursive: true });
  fs.cpSync(path.join(ROOT, 'places', 'cambridge-ma'), path.join(placesDir, 'cambridge-ma'), { recursive: true });
  const svc = await startTestServer({ places: ['cambridge-ma'], config: { placesDir, sourceDir: synthetic.sourceDir } });
  await importPlace(svc.ctx, synthetic.slug, { quiet: true });
  return svc;
}

/** The answer without the moment it was made. */
function answer(s: { generatedAt?: string }): string {
  const { generatedAt: _, ...rest } = s;
  return canonicalJson(rest);
}

const place = async (ctx: AppContext, id: string) => (await getPlace(ctx, id))!;

before(async () => {
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'two-apps-'));
  synthetic = syntheticPlace(work, 3);
  a = await app('a');
  b = await app('b');
});
after(async () => {
  await a?.close();
  await b?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test("an import in one app drops its own caches and leaves the other app's caches and answers untouched", async () => {
  const entries = async (svc: TestServer) => Promise.all([CAMBRIDGE, SYNTHETIC].map((x) => cachedSnapshot(svc.ctx, x)));
  const [aCambridge] = await entries(a);
  const bBefore = await entries(b);
  assert.ok(
    bBefore.every((e) => e.snapshot.answered),
    'both addresses are answered',
  );
  // both places' hot indexes loaded in both apps (no load left running in the background)
  for (const svc of [a, b])
    for (const id of ['US-MA:cambridge', synthetic.placeId]) assert.ok(await warmPlaceIndex(svc.ctx, await place(svc.ctx, id)), `${id}'s hot index is held`);
  const bIndex = await placeSource(b.ctx, await place(b.ctx, synthetic.placeId));
  assert.equal(bIndex.kind, 'memory');
  const bStats = hotIndexOf(b.ctx).stats();

  // app A imports the synthetic place again: its context's placeChanged door opens
  const report = await importPlace(a.ctx, synthetic.slug, { quiet: true, force: true });
  assert.equal(report.changed, true);

  // A's caches of the place were dropped: its hot index reloads, its answers are made again
  assert.equal(
    (await placeSource(a.ctx, await place(a.ctx, synthetic.placeId))).kind,
    'sql',
    'A reads the re-imported place through SQL while its index reloads',
  );
  assert.notEqual(await cachedSnapshot(a.ctx, CAMBRIDGE), aCambridge, 'A answers again after its import');

  // B holds what it held: the same answer entries, the same index, nothing loaded or evicted since
  const bAfter = await entries(b);
  assert.equal(bAfter[0], bBefore[0], "B's cached Cambridge answer is the one it had");
  assert.equal(bAfter[1], bBefore[1], "B's cached answer in the place A imported is the one it had");
  assert.equal(await placeSource(b.ctx, await place(b.ctx, synthetic.placeId)), bIndex, "B's hot index of the place is the one it had");
  const s = hotIndexOf(b.ctx).stats();
  assert.deepEqual(
    { loads: s.loads, evictions: s.evictions, places: s.places, bytes: s.bytes },
    { loads: bStats.loads, evictions: bStats.evictions, places: bStats.places, bytes: bStats.bytes },
  );
  // and its answers, made afresh, are those it gave before
  for (const [i, x] of [CAMBRIDGE, SYNTHETIC].entries()) assert.equal(answer(await getFeasibilitySnapshot(b.ctx, x)), answer(bBefore[i]!.snapshot));
});

test("a rules reload in one app reads its changed rules file and leaves the other app's rules and answers untouched", async () => {
  const bRules = await loadPlaceRules(b.ctx, 'cambridge-ma');
  const bCached = await cachedSnapshot(b.ctx, CAMBRIDGE);
  const before = await getFeasibilitySnapshot(a.ctx, CAMBRIDGE);
  const height = before.envelope!.maxHeightFt!.value as number;
  assert.equal(typeof height, 'number');

  // A's copy of Cambridge's rules file changes every base height of 45 ft to 46 ft; A reloads its rules
  const file = path.join(a.ctx.config.placesDir, 'cambridge-ma', 'rules.json');
  const rules = JSON.parse(fs.readFileSync(file, 'utf8')) as { districts: Record<string, { standards: Record<string, { value?: unknown }> }> };
  for (const d of Object.values(rules.districts)) if (d.standards['maxHeightFt']?.value === height) d.standards['maxHeightFt'].value = height + 1;
  fs.writeFileSync(file, JSON.stringify(rules));
  assert.equal((await getFeasibilitySnapshot(a.ctx, CAMBRIDGE)).envelope!.maxHeightFt!.value, height, 'until the reload, A answers from the rules it read');
  a.ctx.caches.rulesReloaded();
  assert.equal((await getFeasibilitySnapshot(a.ctx, CAMBRIDGE)).envelope!.maxHeightFt!.value, height + 1, 'A answers from its changed rules');
  assert.equal((await cachedSnapshot(a.ctx, CAMBRIDGE)).snapshot.envelope!.maxHeightFt!.value, height + 1, "A's cached answers were dropped");

  // B: the same rules object, the same cached answer, the same fresh answer
  assert.equal(await loadPlaceRules(b.ctx, 'cambridge-ma'), bRules);
  assert.equal(await cachedSnapshot(b.ctx, CAMBRIDGE), bCached);
  assert.equal(answer(await getFeasibilitySnapshot(b.ctx, CAMBRIDGE)), answer(bCached.snapshot));
  assert.equal((await getFeasibilitySnapshot(b.ctx, CAMBRIDGE)).envelope!.maxHeightFt!.value, height);
});
