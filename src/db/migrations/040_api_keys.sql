-- Prepaid REST API keys (`sl_live_...`): only the SHA-256 of a key is stored, with a short display
-- prefix; a key is shown once, at creation. Revoked keys stay (their charges name them).
CREATE TABLE api_keys (
  key_id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);
