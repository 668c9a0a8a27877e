// A wrong password is an expected refusal; a stored password hash that is not an argon2 hash (a
// damaged account row) is a fault: logged and failed as an error, not passed off as a wrong password.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { logLines } from '../../test/support/log-capture.ts';
import { SitelineError } from '../core/errors.ts';
import { createAccount, signIn } from './accounts.ts';

const PASSWORD = 'a long enough password';

test('sign-in: wrong password -> invalid; a damaged stored hash -> an internal error, logged', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    const created = await createAccount(ctx, 'damaged@example.com', PASSWORD);
    assert.ok(created.ok);
    const wrong = await signIn(ctx, 'damaged@example.com', 'not the password at all', '192.0.2.1');
    assert.deepEqual([wrong.ok, !wrong.ok && wrong.reason], [false, 'invalid']);
    assert.equal((await signIn(ctx, 'damaged@example.com', PASSWORD, '192.0.2.1')).ok, true);

    await t.db.query('UPDATE accounts SET password_hash = $2 WHERE account_id = $1', [created.account.accountId, 'not-an-argon2-hash']);
    const from = logLines.length;
    await assert.rejects(signIn(ctx, 'damaged@example.com', PASSWORD, '192.0.2.1'), (err: unknown) => err instanceof SitelineError && err.code === 'internal');
    const logged = logLines.slice(from).filter((l) => l.includes('"msg":"sign-in: the stored password hash cannot be read"'));
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, new RegExp(`"accountId":"${created.account.accountId}"`));
  } finally {
    await t.close();
  }
});
