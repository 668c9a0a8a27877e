-- Accounts, web sessions, agent registrations and their credentials, signing keys, and the storage
-- oidc-provider needs. Every secret is stored as a SHA-256 hash; times come from the app clock.

CREATE TABLE auth_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  retired_at timestamptz                  -- still published (verifies old tokens), no longer signs
);

CREATE TABLE accounts (
  account_id text PRIMARY KEY,
  email text NOT NULL UNIQUE,             -- lower-cased
  password_hash text NOT NULL,            -- argon2id PHC string
  created_at timestamptz NOT NULL
);

CREATE TABLE web_sessions (
  session_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_account ON web_sessions (account_id);

CREATE TABLE sign_in_failures (
  id bigserial PRIMARY KEY,
  throttle_key text NOT NULL,             -- 'email:<address>' or 'ip:<address>'
  failed_at timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_key ON sign_in_failures (throttle_key, failed_at);

CREATE TABLE dev_outbox (
  id bigserial PRIMARY KEY,
  to_address text NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX dev_outbox_to ON dev_outbox (to_address, created_at);

CREATE TABLE agent_registrations (
  registration_id text PRIMARY KEY,
  type text NOT NULL,                     -- 'anonymous' | 'service_auth'
  claim_token_hash text NOT NULL UNIQUE,
  login_hint text,
  created_at timestamptz NOT NULL,
  claim_expires_at timestamptz NOT NULL,
  account_id text REFERENCES accounts (account_id) ON DELETE CASCADE,
  claimed_at timestamptz,
  claim_delivered_at timestamptz,         -- the poll that returned the post-claim tokens
  ceremony_id text UNIQUE,                -- public id in the verification URL
  ceremony_email text,
  user_code_hash text,
  ceremony_expires_at timestamptz,
  failed_code_attempts integer NOT NULL DEFAULT 0,
  denied_at timestamptz,                  -- the human refused this ceremony on the claim page
  poll_interval_s integer NOT NULL DEFAULT 5,
  last_polled_at timestamptz
);

CREATE TABLE agent_credentials (
  token_hash text PRIMARY KEY,
  kind text NOT NULL,                     -- 'assertion' (identity assertion) | 'access' (opaque pre-claim token)
  registration_id text NOT NULL REFERENCES agent_registrations (registration_id) ON DELETE CASCADE,
  scopes text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX agent_credentials_registration ON agent_credentials (registration_id, kind);

CREATE TABLE oidc_models (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_models_grant ON oidc_models (grant_id);
CREATE INDEX oidc_models_uid ON oidc_models (uid);
