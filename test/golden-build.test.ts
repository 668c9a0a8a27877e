// @engine-independent: runs a script over the source files, touches no database.
// The golden file is what its header says: rebuilt from the source files by scripts/build-golden.ts,
// whose geometry is its own (no import from src/), it comes out byte for byte as committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './support/harness.ts';

const SCRIPT = path.join(ROOT, 'scripts/build-golden.ts');
const GOLDEN = path.join(ROOT, 'test/golden/cambridge-addresses.json');

test('the golden addresses are rebuilt, without siteline code, exactly as committed', () => {
  const imports = [...fs.readFileSync(SCRIPT, 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]!);
  assert.deepEqual(
    imports.filter((i) => i.startsWith('.')),
    [],
    'the script imports no code of ours',
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-golden-'));
  try {
    const out = path.join(dir, 'golden.json');
    const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, GOLDEN_OUT: out },
      timeout: 240_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(fs.readFileSync(out, 'utf8'), fs.readFileSync(GOLDEN, 'utf8'));
    assert.ok((JSON.parse(fs.readFileSync(out, 'utf8')) as { addresses: unknown[] }).addresses.length >= 40);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
