-- Refunds and disputes take back the credit a purchase granted (src/billing/payments.ts). The balance
-- row keeps CHECK (balance >= 0), so no spend path can ever overdraw; what a clawback cannot take
-- because the credit was already spent is recorded as `owed` and paid first out of the next purchase
-- or grant. The account's net balance is balance - owed, and the ledger's amounts sum to it.
ALTER TABLE credit_accounts ADD COLUMN IF NOT EXISTS owed bigint NOT NULL DEFAULT 0 CHECK (owed >= 0);
ALTER TABLE credit_ledger DROP CONSTRAINT IF EXISTS credit_ledger_kind_check;
ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_kind_check CHECK (kind IN ('purchase', 'grant', 'spend', 'refund', 'clawback'));
ALTER TABLE credit_ledger DROP CONSTRAINT IF EXISTS credit_ledger_check;
ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_check CHECK (amount <> 0 AND (kind IN ('spend', 'clawback')) = (amount < 0));
-- One row per Stripe payment that bought credit: what it granted, what it cost, and how much of the
-- credit refunds and disputes have taken back so far (never more than it granted).
CREATE TABLE IF NOT EXISTS stripe_purchases (
  payment_intent text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id),
  session_id text,
  credits bigint NOT NULL CHECK (credits > 0),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  clawed_credits bigint NOT NULL DEFAULT 0 CHECK (clawed_credits >= 0 AND clawed_credits <= credits),
  created_at timestamptz NOT NULL
);
