// @engine-independent: the binary runs with DATABASE_URL blank, on a PGlite data directory of its own, so a PostgreSQL run would repeat the PGlite one.
// `siteline data ...` through the real binary, on a throwaway PGlite data directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SHARED_DATA } from '../../test/support/harness.ts';

function siteline(args: string[], dataDir: string) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', SITELINE_DATA_DIR: dataDir, SITELINE_AUTO_IMPORT: '0', LOG_LEVEL: 'warn' },
    timeout: 240_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('siteline data: bad place, bad directory and bad usage exit 2 with a clear message', () => {
  const dir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-cli-'));
  try {
    const a = siteline(['data', 'import', 'atlantis-xx'], dir);
    assert.equal(a.code, 2);
    assert.match(a.err, /^error: siteline data import: no place "atlantis-xx"\. Known places: .*paradise-tx/, 'an error says so first, as every command does');
    const b = siteline(['data', 'import', 'paradise-tx', '--from', '/nonexistent/siteline'], dir);
    assert.equal(b.code, 2);
    assert.match(b.err, /^error: .*does not exist/);
    const c = siteline(['data', 'frobnicate'], dir);
    assert.equal(c.code, 2);
    assert.match(c.err, /unknown subcommand/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('siteline data import then status: progress on stderr, the report on stdout, idempotent', () => {
  const dir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-cli-'));
  try {
    const a = siteline(['data', 'import', 'paradise-tx', '--from', SHARED_DATA], dir);
    assert.equal(a.code, 0, a.err);
    assert.match(a.err, /files verified/);
    assert.match(a.out, /Import paradise-tx \(US-TX:paradise\): loaded/);
    assert.match(a.out, /421 parcels/);
    const again = siteline(['data', 'import', 'paradise-tx', '--from', SHARED_DATA], dir);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /unchanged/);
    const s = siteline(['data', 'status'], dir);
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, /paradise-tx\s+US-TX:paradise\s+planned_not_live\s+imported /);
    assert.match(s.out, /cambridge-ma\s+US-MA:cambridge\s+live_unavailable\s+not imported/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
