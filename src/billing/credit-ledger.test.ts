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
    assert.deepEqual(await addCredit(ctx, { accountId: 'acc-l', kind: 'purchase', credits: 3, reference: 'r', eventId: 'evt-1' }), {
      credited: true,
      balance: 3,
    });
    assert.deepEqual(await addCredit(ctx, { accountId: 'acc-l', kind: 'purchase', credits: 3, reference: 'r', eventId: 'evt-1' }), {
      credited: false,
      reason: 'duplicate_event',
      balance: 3,
    });
    const spends = await Promise.all(Array.from({ length: 10 }, () => spendCredit(ctx, { accountId: 'acc-l', keyId: 'k', reference: 'r' })));
    assert.equal(spends.filter((s) => s.ok).length, 3);
    assert.equal(await creditBalance(t.db, 'acc-l'), 0);
    assert.equal(await ledgerSum(t.db, 'acc-l'), 0);
    // Concurrent spends share one statement (group commit): each answer is its own, in arrival order,
    // with the balance as if they had run one by one; every taken spend has its own ledger entry.
    await addCredit(ctx, { accountId: 'acc-l', kind: 'grant', credits: 5, reference: 'g' });
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => spendCredit(ctx, { accountId: 'acc-l', keyId: `k${i}`, reference: `burst ${i}` })));
    const taken = [4, 3, 2, 1, 0].map((balance) => ({ ok: true, charged: 1, balance }));
    assert.deepEqual(burst, [...taken, { ok: false, balance: 0 }, { ok: false, balance: 0 }, { ok: false, balance: 0 }]);
    const burstRefs = await t.db.query<{ reference: string; key_id: string }>(
      `SELECT reference, key_id FROM credit_ledger WHERE account_id = 'acc-l' AND reference LIKE 'burst %' ORDER BY entry_id`,
    );
    assert.deepEqual(
      burstRefs.map((r) => `${r.reference}/${r.key_id}`),
      [0, 1, 2, 3, 4].map((i) => `burst ${i}/k${i}`),
    );
    await addCredit(ctx, { accountId: 'acc-l', kind: 'grant', credits: 5, reference: 'g' });
    const dear = await Promise.all(Array.from({ length: 3 }, () => spendCredit(ctx, { accountId: 'acc-l', keyId: null, reference: 'dear', cost: 2 })));
    assert.deepEqual(dear, [
      { ok: true, charged: 2, balance: 3 },
      { ok: true, charged: 2, balance: 1 },
      { ok: false, balance: 1 },
    ]);
    assert.equal(await ledgerSum(t.db, 'acc-l'), 1);
    await assert.rejects(t.db.query(`UPDATE credit_ledger SET amount = 100 WHERE account_id = 'acc-l'`), /SQLSTATE P0001/, 'the append-only trigger raises');
    await assert.rejects(t.db.query(`DELETE FROM credit_ledger WHERE account_id = 'acc-l'`), /SQLSTATE P0001/, 'the append-only trigger raises');
    await assert.rejects(t.db.query(`UPDATE credit_accounts SET balance = -1 WHERE account_id = 'acc-l'`), /SQLSTATE 23514/, 'check constraint');
    assert.equal(await ledgerSum(t.db, 'acc-l'), 1, 'the ledger is unchanged');
  } finally {
    await t.close();
  }
});
