// @engine-independent: the binary and the context run with DATABASE_URL blank, on a PGlite data directory of its own, so a PostgreSQL run would repeat the PGlite one.
// `siteline feedback list` through the real binary, on a throwaway PGlite data directory that holds
// reports stored the way the service stores them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../test/support/harness.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openContext } from '../context.ts';
import { ManualClock } from '../clock.ts';
import { createAccount } from '../auth/accounts.ts';
import { submitFeedback } from '../feedback/feedback-store.ts';

const env = (dataDir: string) => ({ ...process.env, DATABASE_URL: '', SITELINE_DATA_DIR: dataDir, SITELINE_AUTO_IMPORT: '0', LOG_LEVEL: 'warn' });

function siteline(args: string[], dataDir: string) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', env: env(dataDir), timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('siteline feedback list: newest first, filters, JSON, and clear usage errors', async () => {
  const dir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-cli-'));
  try {
    const clock = new ManualClock(Date.now());
    const ctx = await openContext(loadConfig(env(dir)), { logger: createLogger('silent'), clock });
    try {
      const acct = await createAccount(ctx, 'reporter@example.com', 'correct horse battery staple');
      assert.ok(acct.ok);
      const accountId = acct.ok ? acct.account.accountId : '';
      const base = { contactConsent: false, shareStreetAddresses: false, affectedToolName: null };
      await submitFeedback(ctx, { accountId, channel: 'web', answer: { ...base, category: 'city_request', message: 'Please cover Springfield, IL.' } });
      clock.advance(60_000); // a later created_at, so "newest first" is observable
      await submitFeedback(ctx, {
        accountId,
        channel: 'mcp',
        answer: {
          ...base,
          category: 'problem',
          message: 'Snapshot failed; call me at 617-555-0123.',
          affectedToolName: 'getFeasibilitySnapshot',
          contactConsent: true,
        },
      });
    } finally {
      await ctx.db.close();
    }

    const all = siteline(['feedback', 'list'], dir);
    assert.equal(all.code, 0, all.err);
    const problem = all.out.indexOf('Something does not work');
    const city = all.out.indexOf('Please cover a city');
    assert.ok(problem >= 0 && city > problem, all.out);
    assert.match(all.out, /tool getFeasibilitySnapshot · via mcp · contact reporter@example\.com/);
    assert.match(all.out, /Snapshot failed; call me at \[removed: phone\]\./);
    assert.match(all.out, /\(removed: phone\)/);

    const json = siteline(['feedback', 'list', '--json', '--category', 'city_request'], dir);
    assert.equal(json.code, 0, json.err);
    const items = JSON.parse(json.out) as { category: string; message: string; contactEmail: string | null }[];
    assert.deepEqual(
      items.map((i) => [i.category, i.message, i.contactEmail]),
      [['city_request', 'Please cover Springfield, IL.', null]],
    );

    const none = siteline(['feedback', 'list', '--since', '2999-01-01'], dir);
    assert.equal(none.out, 'No feedback.\n');

    const bad = siteline(['feedback', 'list', '--category', 'rant'], dir);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--category must be one of problem, wrong_data/);
    assert.equal(siteline(['feedback', 'delete'], dir).code, 2);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}.lock`, { force: true });
  }
});
