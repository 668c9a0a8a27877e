-- Revocation of JWT access tokens that cannot be recalled one by one: every token of an account issued
-- at or before `revoked_before` ("Sign out everywhere", scope '*'), of one OAuth client ('client:<id>'),
-- or of one linked agent or CLI login ('agent:<registration id>'). Checked at every verification
-- (src/auth/token-revocation.ts); one row per account and scope, moved forward by later revocations.
CREATE TABLE IF NOT EXISTS token_revocations (
  account_id text NOT NULL,
  scope text NOT NULL,
  revoked_before timestamptz NOT NULL,
  reason text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, scope)
);
