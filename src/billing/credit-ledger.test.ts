import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { addCredit, creditBalance, ledgerSum, spendCredit } from './credit-ledger.ts';

test('credit ledger: grants, a guarded spend that never overdraws, once per event id, append-only', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    await t.db.query(`INSERT INTO accounts (account_id, email, password_hash, created_at) VALUES ('acc-l', 'l@example.com', 'x', now())`);
    assert.deepEqual(await spendCredit(ctx, { accountId: 'acc-l', keyId: null, reference: 'r' }), { ok: false, balance: 0 });
    await assert.rejects(addCredit(ctx, { accountId: 'acc-l', kind: 'grant', credits: 0, reference: 'r' }), /whole number/);
    await assert.rejects(addCredit(ctx, { accountId: 'acc-l', kind: 'grant', credits: 1.5, reference: 'r' }), /whole number/);
    assert.deepEqual(await addCredit(ctx, { accountId: 'acc-l', kind: 'purchase', credits: 3, reference: 'r', eventId: 'evt-1' }), { credited: true, balance: 3 });
    assert.deepEqual(await addCredit(ctx, { accountId: 'acc-l', kind: 'purchase', credits: 3, reference: 'r', eventId: 'evt-1' }), {
      credited: false,
      reason: 'duplicate_event',
      balance: 3,
    });
    const spends = await Promise.all(Array.from({ length: 10 }, () => spendCredit(ctx, { accountId: 'acc-l', keyId: 'k', reference: 'r' })));
    assert.equal(spends.filter((s) => s.ok).length, 3);
    assert.equal(await creditBalance(t.db, 'acc-l'), 0);
    assert.equal(await ledgerSum(t.db, 'acc-l'), 0);
    await assert.rejects(t.db.query(`UPDATE credit_ledger SET amount = 100 WHERE account_id = 'acc-l'`), /SQLSTATE P0001/, 'the append-only trigger raises');
    await assert.rejects(t.db.query(`DELETE FROM credit_ledger WHERE account_id = 'acc-l'`), /SQLSTATE P0001/, 'the append-only trigger raises');
    await assert.rejects(t.db.query(`UPDATE credit_accounts SET balance = -1 WHERE account_id = 'acc-l'`), /SQLSTATE 23514/, 'check constraint');
    assert.equal(await ledgerSum(t.db, 'acc-l'), 0, 'the ledger is unchanged');
  } finally {
    await t.close();
  }
});
