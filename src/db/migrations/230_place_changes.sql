-- The complete change log of each update (issue 50): one row per lot re-zoned, added, removed, split,
-- merged or whose area changed, and per address added or removed, under the vintage that made the change.
-- place_vintages.changes keeps the counts and up to 25 examples; this table keeps every one, paged by
-- the REST coverage lookup. town_vintage is the town's date for the files (data update --vintage);
-- imported_at is ours: changesSince filters by either.
CREATE TABLE IF NOT EXISTS place_changes (
  place_id text NOT NULL,
  vintage_id integer NOT NULL,
  seq integer NOT NULL,
  kind text NOT NULL,
  subject text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}',
  town_vintage text NOT NULL,
  imported_at timestamptz NOT NULL,
  PRIMARY KEY (place_id, vintage_id, seq)
);
CREATE INDEX IF NOT EXISTS place_changes_town_vintage ON place_changes (place_id, town_vintage);
CREATE INDEX IF NOT EXISTS place_changes_imported_at ON place_changes (place_id, imported_at);
