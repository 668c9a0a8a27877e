-- Every import that changed a place is kept as a dated vintage: which file (sha256) and which vintage
-- of each layer it loaded, the column names each source had (so a column renamed in a later file is
-- reported as renamed), a digest of each district's rules, and the change log against the previous
-- vintage (lots added / removed, lots whose zone or area changed, districts whose rules changed).
-- The rows themselves are replaced at each import; this table is the history /coverage/<place> shows.
CREATE TABLE IF NOT EXISTS place_vintages (
  vintage_id serial PRIMARY KEY,
  place_id text NOT NULL,
  imported_at timestamptz NOT NULL,
  source_digest text NOT NULL,
  layers jsonb NOT NULL,
  columns jsonb NOT NULL DEFAULT '{}',
  rules_digests jsonb NOT NULL DEFAULT '{}',
  changes jsonb
);
CREATE INDEX IF NOT EXISTS place_vintages_place ON place_vintages (place_id, vintage_id);
