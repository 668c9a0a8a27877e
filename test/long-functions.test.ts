// @engine-independent: reads the source files, not the database.
// Every function in src/ over ~100 lines says why in a "Long because:" comment above it
// (scripts/long-functions.mjs --strict), and the check fails on one that does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = (env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [path.join(ROOT, 'scripts/long-functions.mjs'), '--strict'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });

test('every long function in src/ says why it is long', () => {
  const r = run();
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test('the check fails where a long function gives no reason (a lower limit makes some)', () => {
  const r = run({ LONG_FUNCTION_LINES: '40' });
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /NO REASON/);
});
