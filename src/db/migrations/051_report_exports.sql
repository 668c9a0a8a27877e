-- Saved report exports (the PDF itself, so every instance on one PostgreSQL can serve it), the
-- per-account monthly export meter, and the key that signs download links (one row, shared).
CREATE TABLE IF NOT EXISTS report_exports (
  export_id uuid PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  request_key text NOT NULL,
  title text NOT NULL,
  page_count integer NOT NULL CHECK (page_count > 0),
  byte_size integer NOT NULL CHECK (byte_size > 0),
  sha256 text NOT NULL,
  pdf bytea NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS report_exports_request ON report_exports (account_id, request_key, created_at DESC);
CREATE TABLE IF NOT EXISTS report_export_meter (
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  period text NOT NULL,
  used integer NOT NULL CHECK (used >= 0),
  PRIMARY KEY (account_id, period)
);
CREATE TABLE IF NOT EXISTS report_url_keys (
  id integer PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL,
  created_at timestamptz NOT NULL
);
