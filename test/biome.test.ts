// @engine-independent: reads the source files, not the database.
// Biome's formatter and linter (biome.jsonc) hold on every file git tracks, and each fails on a file written to
// break it (so a configuration that checks nothing is caught too). `npx biome check --write .` mends both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIOME = path.join(ROOT, 'node_modules', '.bin', 'biome');

function biome(args: string[], cwd = ROOT): { status: number | null; out: string } {
  const r = spawnSync(BIOME, args, { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('the tree passes biome ci (format and lint)', () => {
  const r = biome(['ci', '--error-on-warnings', '--max-diagnostics=20', '.']);
  assert.equal(r.status, 0, `biome ci found problems (mend with: npx biome check --write .):\n${r.out}`);
});

test('biome refuses a misformatted file and a lint error, under the repository configuration', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-biome-'));
  try {
    fs.copyFileSync(path.join(ROOT, 'biome.jsonc'), path.join(dir, 'biome.jsonc'));
    fs.writeFileSync(
      path.join(dir, 'biome.jsonc'),
      fs.readFileSync(path.join(dir, 'biome.jsonc'), 'utf8').replace('"vcs": { "enabled": true', '"vcs": { "enabled": false'),
    );
    fs.writeFileSync(path.join(dir, 'format.ts'), 'export const a = {b:1,   c: "two"}\n');
    const format = biome(['format', '--config-path', dir, path.join(dir, 'format.ts')], dir);
    assert.notEqual(format.status, 0, format.out);
    fs.rmSync(path.join(dir, 'format.ts'));
    fs.writeFileSync(path.join(dir, 'lint.ts'), "import { readFileSync } from 'node:fs';\nexport const x = 1;\n");
    const lint = biome(['lint', '--error-on-warnings', '--config-path', dir, path.join(dir, 'lint.ts')], dir);
    assert.notEqual(lint.status, 0, lint.out);
    assert.match(lint.out, /noUnusedImports/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
