-- The accuracy audit of each place (`siteline data audit`, rerun after every import that changed the
-- place): every address of its address table through the geocoder, scored against the source's own
-- address -> lot join and the point-in-lot test. One row per place, the latest audit; the report is
-- the JSON document `siteline data audit --json` prints (docs/audit.md).
CREATE TABLE IF NOT EXISTS place_audits (
  place_id text PRIMARY KEY,
  source_digest text NOT NULL,
  generated_at timestamptz NOT NULL,
  report json NOT NULL
);
