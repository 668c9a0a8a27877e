// @engine-independent: the commands here find no database at all (DATABASE_URL is cleared on purpose)
// Issue 47, item 5: the CLI never guesses its database. A staff or data command run outside the
// server's directory, without --url, SITELINE_URL, a login, DATABASE_URL or a data directory that
// holds a database, used to create a new, empty embedded database where it stood (41 MB) and answer
// "No account with the e-mail …". Now it refuses with one line naming where it looked, and creates
// nothing; `data import` is the command that creates one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSiteline } from './support/cli.ts';

test('staff and data commands with nothing to act on refuse with one line naming where they looked, and create no database', async () => {
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-elsewhere-'));
  try {
    const config = path.join(elsewhere, 'config');
    // Nothing set: no --url, no SITELINE_URL, no login (an empty config directory), no DATABASE_URL, no data directory.
    const env = { DATABASE_URL: '', SITELINE_URL: '', SITELINE_DATA_DIR: '', SITELINE_CONFIG_DIR: config, NO_COLOR: '1', LOG_LEVEL: 'warn' };
    const here = fs.realpathSync(elsewhere);
    const staffCommands = [
      ['credits', 'grant', 'ann@example.com', '5', '--reason', 'pilot'],
      ['feedback', 'list'],
      ['staff', 'add', 'ann@example.com'],
    ];
    const dataCommands = [
      ['data', 'status'],
      ['data', 'audit', 'cambridge-ma'],
    ];
    const runs = await Promise.all([...staffCommands, ...dataCommands].map((args) => runSiteline(args, env, undefined, elsewhere)));
    for (const [i, args] of staffCommands.entries()) {
      const r = runs[i]!;
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `one line: ${r.stderr}`);
      assert.match(
        lines[0]!,
        new RegExp(
          `^error: siteline ${args[0]} ${args[1]}: nothing to act on: no --url, no SITELINE_URL, no login \\(${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/credentials\\.json\\), no DATABASE_URL, and ${here.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.siteline holds no siteline database`,
        ),
      );
      assert.doesNotMatch(r.stderr, /No account with the e-mail/);
    }
    for (const [i, args] of dataCommands.entries()) {
      const r = runs[staffCommands.length + i]!;
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(
          `^error: siteline ${args.slice(0, 2).join(' ')}: no database: DATABASE_URL is not set and ${here.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.siteline holds no siteline database`,
        ),
      );
    }
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing was created where the commands ran');
  } finally {
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});
