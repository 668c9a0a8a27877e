import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { ManualClock } from '../clock.ts';
import { createAccount } from './accounts.ts';
import { exchangeAssertion, registerIdentity } from './agent-identity.ts';
import { sweepExpiredAuthRows } from './sweep.ts';
import { requestPasswordReset } from './account-recovery.ts';

const DAY = 24 * 3600_000;

test('expired auth rows are swept after their grace period, live ones never', async () => {
  const t = await createTestDb();
  try {
    const clock = new ManualClock(Date.UTC(2026, 3, 1, 12));
    const ctx = testCtx(t.db, {}, clock);
    const reg = await registerIdentity(ctx, { type: 'anonymous' }); // assertion: 30 days; claim window: shorter
    await exchangeAssertion(ctx, reg.identity_assertion!, undefined); // pre-claim access token: 1 hour
    const account = await createAccount(ctx, 'sweep@example.com', 'a long enough password');
    assert.ok(account.ok);
    const at = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
    await t.db.query('INSERT INTO web_sessions (session_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4), ($5, $2, $3, $6)', [
      'short',
      account.account.accountId,
      at(0),
      at(2 * DAY),
      'long',
      at(20 * DAY),
    ]);
    await t.db.query(`INSERT INTO oidc_models (model, id, payload, expires_at) VALUES ('AuthorizationCode', 'c1', '{}', $1), ('Session', 's1', '{}', $2)`, [
      at(60_000),
      at(30 * DAY),
    ]);
    // A reset link (1 hour) that the second sweep removes; the sign-up's verification mail is the sent mail.
    assert.deepEqual(await requestPasswordReset(ctx, 'sweep@example.com', '192.0.2.1'), { ok: true });
    const count = async (table: string) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;

    assert.deepEqual(await sweepExpiredAuthRows(ctx), {
      webSessions: 0,
      oauthArtefacts: 0,
      agentCredentials: 0,
      agentRegistrations: 0,
      accountLinks: 0,
      sentMail: 0,
    });
    clock.advance(4 * DAY);
    assert.deepEqual(
      await sweepExpiredAuthRows(ctx),
      { webSessions: 1, oauthArtefacts: 1, agentCredentials: 0, agentRegistrations: 0, accountLinks: 1, sentMail: 0 },
      'a day past expiry',
    );
    clock.advance(4 * DAY);
    assert.deepEqual(
      await sweepExpiredAuthRows(ctx),
      { webSessions: 0, oauthArtefacts: 0, agentCredentials: 1, agentRegistrations: 0, accountLinks: 0, sentMail: 0 },
      'the access token, a week past expiry',
    );
    assert.equal(await count('agent_registrations'), 1, 'kept while its assertion lives');
    clock.advance(30 * DAY);
    assert.deepEqual(
      await sweepExpiredAuthRows(ctx),
      { webSessions: 1, oauthArtefacts: 1, agentCredentials: 1, agentRegistrations: 1, accountLinks: 0, sentMail: 2 },
      'the verification and reset mails, a month after they were sent',
    );
    for (const table of ['web_sessions', 'oidc_models', 'agent_credentials', 'agent_registrations', 'password_resets', 'mail_queue'])
      assert.equal(await count(table), 0, table);
    assert.equal(await count('accounts'), 1, 'accounts are never swept');
  } finally {
    await t.close();
  }
});
