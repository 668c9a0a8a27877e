-- Prepaid credit: one balance row per account that can never go below zero, and an append-only
-- ledger (purchase, grant, spend, refund) whose amounts sum to the balance. A payment provider's
-- event id is unique, so a redelivered webhook credits once.
CREATE TABLE credit_accounts (
  account_id text PRIMARY KEY REFERENCES accounts (account_id),
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  updated_at timestamptz NOT NULL
);
CREATE TABLE credit_ledger (
  entry_id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id),
  kind text NOT NULL CHECK (kind IN ('purchase', 'grant', 'spend', 'refund')),
  amount bigint NOT NULL CHECK (amount <> 0 AND (kind = 'spend') = (amount < 0)),
  reference text NOT NULL,
  event_id text UNIQUE,
  key_id text,
  created_at timestamptz NOT NULL
);
CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at);
CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'credit_ledger is append-only: add a refund or grant entry instead of changing one'; END $$;
CREATE TRIGGER credit_ledger_no_change BEFORE UPDATE OR DELETE ON credit_ledger FOR EACH ROW EXECUTE FUNCTION credit_ledger_append_only();
