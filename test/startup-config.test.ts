// @engine-independent: the configuration is refused before any database is opened.
// A bad configuration value stops `npm start` (src/main.ts) before anything starts: exit 2, the
// variable named, no stack trace and no "listening" line, for the config module's variables and for
// the analysis workers' own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSiteline } from './support/siteline-process.ts';
import { ROOT } from './support/harness.ts';

for (const [name, value] of [
  ['PORT', 'abc'],
  ['SITELINE_ANALYSIS_WORKERS', 'abc'],
  ['SITELINE_ANALYSIS_LEASE_MS', '5'],
  ['SITELINE_METRICS_TOKEN', 'short'],
  ['SITELINE_SHUTDOWN_GRACE_MS', '-1'],
] as const) {
  test(`${name}=${value}: exit 2 with the variable named, before anything listens`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-config-'));
    try {
      const env: Record<string, string> = {
        PATH: process.env['PATH'] ?? '',
        HOME: dir,
        SITELINE_DATA_DIR: path.join(dir, 'data'),
        SITELINE_AUTO_IMPORT: '0',
        PORT: '0',
        LOG_LEVEL: 'info',
        [name]: value,
      };
      const s = startSiteline(env, ROOT);
      let stderr = '';
      s.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const { code } = await s.exited;
      assert.equal(code, 2, stderr);
      assert.match(stderr, /^Invalid environment:/);
      assert.match(stderr, new RegExp(`\\b${name}\\b`));
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
      assert.equal(
        s.lines.find((l) => l['msg'] === 'listening'),
        undefined,
        'never listened',
      );
      assert.equal(fs.existsSync(path.join(dir, 'data', 'pgdata')), false, 'no database was opened');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
