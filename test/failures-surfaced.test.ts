// Nothing swallowed: a place with no rules file is an expected condition (answers go on without rules),
// but a rules file that is there and broken is a fault, logged and said to the caller, not turned into
// a silent "no rules". Driven on a copy of Cambridge whose rules file the test removes, then corrupts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { logLines } from './support/log-capture.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { findKnowledgeSection } from '../src/projects/knowledge-index.ts';
import { saveToProject } from '../src/projects/save-to-project.ts';
import { SitelineError } from '../src/core/errors.ts';

const SLUG = 'cambridge-ma';
let svc: TestServer;
let placesDir: string;
let rulesFile: string;
let original: string;
let pin: { lat: number; lng: number };

before(async () => {
  placesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-surfaced-'));
  fs.cpSync(path.join(ROOT, 'places', SLUG), path.join(placesDir, SLUG), { recursive: true });
  rulesFile = path.join(placesDir, SLUG, 'rules.json');
  original = fs.readFileSync(rulesFile, 'utf8');
  svc = await startTestServer({ places: [SLUG], config: { placesDir } });
  const snap = await getFeasibilitySnapshot(svc.ctx, '11 Acorn St, Cambridge, MA');
  assert.ok(snap.answered && snap.lot);
  pin = { lat: snap.lot.latitude, lng: snap.lot.longitude };
});
after(async () => {
  await svc?.close();
  fs.rmSync(placesDir, { recursive: true, force: true });
});

/** The rules file as the test sets it: the original text, removed (null), or other text. */
function setRules(text: string | null): void {
  if (text === null) fs.rmSync(rulesFile, { force: true });
  else fs.writeFileSync(rulesFile, text);
  svc.ctx.caches.rulesReloaded();
}

const linesSince = (from: number, msg: string) => logLines.slice(from).filter((l) => l.includes(`"msg":"${msg}"`));
const catalogue = () => fetch(`${svc.url}/places/${SLUG}/sources.json`);
/** The tile at zoom z that holds the test's lot (zoning is drawn from z 11; each zoom a tile of its own). */
function tileAtPin(z: number): Promise<Response> {
  const n = 2 ** z;
  const lat = (pin.lat * Math.PI) / 180;
  const x = Math.floor(((pin.lng + 180) / 360) * n);
  const y = Math.floor(((1 - Math.log(Math.tan(lat) + 1 / Math.cos(lat)) / Math.PI) / 2) * n);
  return fetch(`${svc.url}/tiles/${z}/${x}/${y}.pbf`);
}
const TILE_WARNING = 'tiles: the rules do not load; zone categories from zone names only';
const previewAtPin = () =>
  saveToProject(svc.ctx, 'acct-surfaced', { action: 'create', name: 'Surfaced', address: '11 Acorn St, Cambridge, MA', ...pin, preview: true });

test('no rules file: the catalogue and the knowledge index carry on without rules, and nothing is logged as a fault', async () => {
  setRules(null);
  const from = logLines.length;
  const res = await catalogue();
  assert.equal(res.status, 200);
  const body = (await res.json()) as { sources: Record<string, unknown> };
  assert.ok(Object.keys(body.sources).length > 0, 'the data sources are still listed');
  assert.equal(await findKnowledgeSection(svc.ctx, '00000000-0000-4000-8000-000000000000'), null, 'a place without rules holds no sections: not found');
  assert.deepEqual(linesSince(from, 'source catalogue: the rules do not load'), []);
  assert.deepEqual(linesSince(from, 'knowledge sections: rules do not load'), []);
  assert.equal((await tileAtPin(14)).status, 200, 'the tile is drawn');
  assert.deepEqual(linesSince(from, TILE_WARNING), []);
});

test('a corrupt rules file: the catalogue answers 500 and logs why, the knowledge index says the section may be there, the address check warns, tiles log it', async () => {
  setRules('{ "slug": "cambridge-ma", not json');
  try {
    const from = logLines.length;
    const res = await catalogue();
    assert.equal(res.status, 500, 'not a catalogue quietly missing the rules');
    const logged = linesSince(from, 'source catalogue: the rules do not load');
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /"place":"cambridge-ma"/);
    assert.match(logged[0]!, /not valid JSON/);

    await assert.rejects(
      findKnowledgeSection(svc.ctx, '00000000-0000-4000-8000-000000000000'),
      (err: unknown) => err instanceof SitelineError && err.code === 'unavailable' && /cambridge-ma/.test(err.message),
    );

    const outcome = await previewAtPin();
    assert.equal(outcome.kind, 'preview');
    const warnings = (outcome as { warnings: string[] }).warnings;
    assert.ok(
      warnings.some((w) => /could not be checked against the supplied point/.test(w)),
      `the failed check is said, not passed over: ${JSON.stringify(warnings)}`,
    );
    assert.equal(linesSince(from, 'project save: the address beside the point could not be checked').length, 1);

    assert.equal((await tileAtPin(15)).status, 200, 'the tile is still drawn, from the zone names');
    assert.ok(linesSince(from, TILE_WARNING).length >= 1, 'and the broken rules are logged');
  } finally {
    setRules(original);
  }
});

test('the rules restored: the catalogue answers again and the address check is silent when the two agree', async () => {
  setRules(original);
  assert.equal((await catalogue()).status, 200);
  const outcome = await previewAtPin();
  assert.deepEqual(
    (outcome as { warnings: string[] }).warnings.filter((w) => /could not be checked|matches lot/.test(w)),
    [],
  );
});
