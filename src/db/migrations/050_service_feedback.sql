-- Feedback sent by signed-in users (submitServiceFeedback, the /feedback page). The message is stored
-- only after scrubbing; submission_id makes a retried submission idempotent (no second row).
CREATE TABLE IF NOT EXISTS service_feedback (
  submission_id uuid PRIMARY KEY,
  account_id text REFERENCES accounts (account_id) ON DELETE SET NULL,
  category text NOT NULL CHECK (category IN ('problem', 'wrong_data', 'city_request', 'suggestion', 'praise', 'other')),
  message text NOT NULL CHECK (char_length(message) BETWEEN 1 AND 4000),
  affected_tool text,
  contact_consent boolean NOT NULL DEFAULT false,
  contact_email text,
  street_addresses_shared boolean NOT NULL DEFAULT false,
  redactions jsonb NOT NULL DEFAULT '{}'::jsonb,
  channel text NOT NULL CHECK (channel IN ('mcp', 'web')),
  created_at timestamptz NOT NULL,
  CHECK (contact_consent OR contact_email IS NULL)
);
CREATE INDEX IF NOT EXISTS service_feedback_created ON service_feedback (created_at DESC);
