-- Idempotency-Key on billable POSTs (Stripe's rule): the first request's response is stored and
-- replayed for 24 hours; the same key with another body is refused. A row without a status is in flight.
CREATE TABLE idempotency_keys (
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  idem_key text NOT NULL,
  request_digest text NOT NULL,
  status_code integer,
  response_body text,
  credits_charged integer,
  credits_remaining bigint,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, idem_key)
);
