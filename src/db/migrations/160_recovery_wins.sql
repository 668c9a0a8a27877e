-- Recovery wins (issue 45): a password reset or change, "sign out everywhere" and the undo of an
-- address change cancel every pending e-mail change (its confirmation link then says so and changes
-- nothing), and a completed change mails the old address a link that moves the account back for 7
-- days (stored hashed, single use).
ALTER TABLE email_changes ADD COLUMN IF NOT EXISTS cancelled_at timestamptz;
CREATE TABLE IF NOT EXISTS email_change_undos (
  token_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  old_email text NOT NULL,
  new_email text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX IF NOT EXISTS email_change_undos_account ON email_change_undos (account_id, created_at);
