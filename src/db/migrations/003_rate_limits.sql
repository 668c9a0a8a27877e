-- Fixed-window request counters shared by every instance on one database (the LOCATION limit:
-- cityInventory probes and /api/geo/coverage-status, 30 per minute per IP).
CREATE TABLE IF NOT EXISTS rate_limit_windows (
  bucket text NOT NULL,
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (bucket, subject, window_start)
);
CREATE INDEX IF NOT EXISTS rate_limit_windows_start_idx ON rate_limit_windows (window_start);
