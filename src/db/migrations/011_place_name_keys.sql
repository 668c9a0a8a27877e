-- Folded place names and aliases, so resolving a city is one indexed lookup instead of a scan of the
-- catalogue (a national catalogue holds thousands of places). GIN over text[] is core PostgreSQL.
ALTER TABLE places ADD COLUMN name_keys text[] NOT NULL DEFAULT '{}';
CREATE INDEX places_name_keys ON places USING gin (name_keys);
