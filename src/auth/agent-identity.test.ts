// The jwt-bearer exchange against a claim committing at the same moment (PostgreSQL: several
// connections; PGlite runs one transaction at a time, so there the race cannot happen).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { ManualClock } from '../clock.ts';
import { createAccount } from './accounts.ts';
import { exchangeAssertion, registerIdentity } from './agent-identity.ts';

test(
  'an exchange racing the claim waits for it and gets a user token; no pre-claim token outlives the claim',
  { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL: PGlite serialises transactions' },
  async () => {
    const t = await createTestDb();
    try {
      const ctx = testCtx(t.db, {}, new ManualClock(Date.UTC(2026, 3, 1, 12)));
      const reg = await registerIdentity(ctx, { type: 'anonymous' });
      const account = await createAccount(ctx, 'racer@example.com', 'a long enough password');
      assert.ok(account.ok);
      const [{ registration_id: id }] = (await t.db.query<{ registration_id: string }>('SELECT registration_id FROM agent_credentials WHERE kind = $1', ['assertion'])) as [
        { registration_id: string },
      ];
      // The claim, as completeClaim runs it: lock the registration, set the account, revoke the
      // pre-claim tokens, commit. It holds the lock while the exchange starts.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const claim = t.db.transaction(async (tx) => {
        await tx.query('SELECT 1 FROM agent_registrations WHERE registration_id = $1 FOR UPDATE', [id]);
        await tx.query('UPDATE agent_registrations SET account_id = $2, claimed_at = now() WHERE registration_id = $1', [id, account.account.accountId]);
        await tx.query(`UPDATE agent_credentials SET revoked_at = now() WHERE registration_id = $1 AND kind = 'access' AND revoked_at IS NULL`, [id]);
        locked();
        await held;
      });
      await isLocked;
      const exchange = exchangeAssertion(ctx, reg.identity_assertion!, undefined);
      await new Promise((r) => setTimeout(r, 300));
      release();
      const [, token] = await Promise.all([claim, exchange]);
      assert.equal(token.scope, 'mcp', 'the exchange saw the claim and minted a user token');
      const [open] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM agent_credentials WHERE registration_id = $1 AND kind = 'access' AND revoked_at IS NULL`, [id]);
      assert.equal(open!.n, 0, 'no pre-claim token left unrevoked');
    } finally {
      await t.close();
    }
  },
);
