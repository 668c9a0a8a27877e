-- E-mail verification on sign-up: when the account proved control of its address (NULL: not yet),
-- every verification link sent (single use: used_at), and the key that signs the links (one row, shared
-- by every instance on one PostgreSQL).
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS email_verified_at timestamptz;
CREATE TABLE IF NOT EXISTS email_verification_links (
  link_id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  email text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX IF NOT EXISTS email_verification_links_account ON email_verification_links (account_id, created_at);
CREATE TABLE IF NOT EXISTS email_link_keys (
  id integer PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL,
  created_at timestamptz NOT NULL
);
