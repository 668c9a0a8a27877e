-- Password reset by e-mail (single use, the token stored hashed) and e-mail address changes waiting
-- for the new address to confirm.
CREATE TABLE IF NOT EXISTS password_resets (
  token_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX IF NOT EXISTS password_resets_account ON password_resets (account_id, created_at);
CREATE TABLE IF NOT EXISTS email_changes (
  token_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  old_email text NOT NULL,
  new_email text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX IF NOT EXISTS email_changes_account ON email_changes (account_id, created_at);
-- The account page names each agent and CLI login (label: "CLI on <host>", or what the agent sent at
-- registration) and says when it was last used (its last jwt-bearer exchange or claim delivery).
ALTER TABLE agent_registrations ADD COLUMN IF NOT EXISTS label text;
ALTER TABLE agent_registrations ADD COLUMN IF NOT EXISTS last_used_at timestamptz;
