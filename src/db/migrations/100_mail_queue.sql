-- The mail queue: every message is written here first, then sent by a worker (src/mail/mail-worker.ts).
-- status: queued (waiting for next_attempt_at) -> sending (claimed: lease_until, worker_id) -> sent | failed.
-- A worker that dies mid-send leaves the row 'sending' with a passed lease; another worker takes it.
CREATE TABLE IF NOT EXISTS mail_queue (
  id bigserial PRIMARY KEY,
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  status text NOT NULL DEFAULT 'queued',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until timestamptz,
  worker_id text,
  last_error text,
  created_at timestamptz NOT NULL,
  sent_at timestamptz,
  failed_at timestamptz
);
CREATE INDEX IF NOT EXISTS mail_queue_due ON mail_queue (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS mail_queue_to ON mail_queue (to_address, subject, created_at);
