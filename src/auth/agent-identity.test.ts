// The claim against itself and against the jwt-bearer exchange, both driven through the real
// functions at once. On PostgreSQL the calls really overlap (several connections); PGlite runs one
// transaction at a time, so there the same calls interleave only between transactions: the
// assertions hold on both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { ManualClock } from '../clock.ts';
import { createAccount } from './accounts.ts';
import { exchangeAssertion, registerIdentity } from './agent-identity.ts';
import { completeClaim, startClaim } from './claim-ceremony.ts';

const CLAIMS = 8;
const EXCHANGES = 4;

test('concurrent claims of one registration: exactly one wins; racing exchanges leave no pre-claim token alive', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db, {}, new ManualClock(Date.UTC(2026, 3, 1, 12)));
    const reg = await registerIdentity(ctx, { type: 'anonymous' });
    const created = await createAccount(ctx, 'racer@example.com', 'a long enough password');
    assert.ok(created.ok);
    const account = created.account;
    await t.db.query('UPDATE accounts SET email_verified_at = $2 WHERE account_id = $1', [account.accountId, ctx.clock.now().toISOString()]);
    // A pre-claim token issued before the claim: the claim must revoke it.
    const before = await exchangeAssertion(ctx, reg.identity_assertion!, undefined);
    assert.equal(before.scope, 'mcp.public');
    const { claim } = await startClaim(ctx, reg.claim_token, account.email);
    const ceremonyId = claim.verification_uri.split('/').pop()!;

    const claims = Array.from({ length: CLAIMS }, () => completeClaim(ctx, ceremonyId, account, claim.user_code));
    const exchanges = Array.from({ length: EXCHANGES }, () => exchangeAssertion(ctx, reg.identity_assertion!, undefined));
    const [outcomes, tokens] = await Promise.all([Promise.all(claims), Promise.all(exchanges)]);

    const states = outcomes.map((o) => o.state);
    assert.equal(states.filter((s) => s === 'done').length, 1, `exactly one claim wins: ${states.join(', ')}`);
    assert.deepEqual(
      states.filter((s) => s !== 'done'),
      Array(CLAIMS - 1).fill('claimed'),
      'every other claim sees the registration already claimed',
    );
    const [row] = await t.db.query<{ account_id: string | null }>('SELECT account_id FROM agent_registrations WHERE ceremony_id = $1', [ceremonyId]);
    assert.equal(row!.account_id, account.accountId);
    for (const tok of tokens) assert.ok(tok.scope === 'mcp' || tok.scope === 'mcp.public', `an exchange got a token (${tok.scope})`);
    const [open] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM agent_credentials c JOIN agent_registrations r USING (registration_id)
        WHERE r.ceremony_id = $1 AND c.kind = 'access' AND c.revoked_at IS NULL`,
      [ceremonyId],
    );
    assert.equal(open!.n, 0, 'no pre-claim token outlives the claim');
    const after = await exchangeAssertion(ctx, reg.identity_assertion!, undefined);
    assert.equal(after.scope, 'mcp', 'after the claim the exchange mints a user token');
  } finally {
    await t.close();
  }
});
