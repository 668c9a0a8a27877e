import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadAllManifests, parseManifest, sourceFiles, canonicalJson, loadManifest, PLACES_DIR } from './manifest.ts';
import { SHARED_DATA } from '../../test/support/harness.ts';

test('manifests: every shipped place parses, one per folder, and every checksum agrees with the data pack SHA256SUMS', () => {
  const ms = loadAllManifests(PLACES_DIR);
  // One manifest per folder of places/, in folder order (derived: adding a place does not break this test).
  const folders = fs
    .readdirSync(PLACES_DIR)
    .filter((d) => fs.existsSync(path.join(PLACES_DIR, d, 'manifest.json')))
    .sort();
  assert.deepEqual(
    ms.map((m) => m.slug),
    folders,
  );
  for (const named of ['cambridge-ma', 'chicago-il', 'paradise-tx', 'saanich-bc']) assert.ok(folders.includes(named), named);
  assert.equal(new Set(ms.map((m) => m.geoDivisionId)).size, ms.length, 'geoDivisionIds are unique');
  const sums = new Map(
    fs
      .readFileSync(path.join(SHARED_DATA, 'SHA256SUMS'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, file] = l.split(/\s+\*?/);
        return [file!, sha!] as const;
      }),
  );
  for (const m of ms) {
    for (const f of [...m.sources.flatMap(sourceFiles), ...m.documents]) {
      assert.equal(sums.get(`${m.sourceFolder}/${f.file}`), f.sha256, `${m.slug}: ${f.file}`);
    }
  }
  assert.equal(ms.find((m) => m.slug === 'cambridge-ma')?.status, 'live');
  for (const slug of ['chicago-il', 'paradise-tx', 'saanich-bc']) assert.equal(ms.find((m) => m.slug === slug)?.status, 'planned_not_live', slug);
});

test('manifests: a bad manifest is a clear bad_input error', () => {
  const good = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../places/paradise-tx/manifest.json'), 'utf8'));
  assert.throws(() => parseManifest('{', 'x.json'), /x\.json: not valid JSON/);
  assert.throws(() => parseManifest(JSON.stringify({ ...good, geoDivisionId: 'paradise' }), 'x.json'), /geoDivisionId/);
  const badSha = structuredClone(good);
  badSha.sources[0].sha256 = 'abc';
  assert.throws(() => parseManifest(JSON.stringify(badSha), 'x.json'), /sources\.0\.sha256/);
  const escaping = structuredClone(good);
  escaping.sources[0].file = '../../etc/passwd';
  assert.throws(() => parseManifest(JSON.stringify(escaping), 'x.json'), /relative paths inside the place folder/);
  const dup = structuredClone(good);
  dup.sources[1].id = dup.sources[0].id;
  assert.throws(() => parseManifest(JSON.stringify(dup), 'x.json'), /appears twice/);
  assert.throws(() => loadManifest('No Such', PLACES_DIR), /not a place slug/);
});

test('manifests: the digest ignores key order', () => {
  assert.equal(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] }), canonicalJson({ a: [1, { c: 3, d: 2 }], b: 1 }));
});
