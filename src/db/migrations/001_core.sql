-- Core geographic schema. Every geographic table carries place_id and every hot-path query filters
-- by it, so the tables can later be partitioned (PARTITION BY LIST (place_id)) or distributed
-- (Citus, distribution column place_id) without rewriting queries.
-- Geometry is stored as GeoJSON coordinates plus a bounding box (box, GiST-indexed): the index finds
-- candidates, exact geometry is computed in the application. Geometry, lot facts and source
-- attributes are `json`, not `jsonb`: they are only ever read whole, and `json` loads about twice as
-- fast (measured on PGlite: COPY 8.8 us/row against 14.1), which matters for a million-parcel import.

CREATE TABLE places (
  place_id text PRIMARY KEY,              -- geoDivisionId, e.g. 'US-MA:cambridge'
  slug text NOT NULL UNIQUE,              -- manifest key, e.g. 'cambridge-ma'
  name text NOT NULL,
  region text NOT NULL,                   -- ISO 3166-2 subdivision code without country, e.g. 'MA'
  country text NOT NULL,                  -- 'US' | 'CA'
  status text NOT NULL,                   -- coverage status: live | live_unavailable | planned_not_live ...
  aliases jsonb NOT NULL DEFAULT '[]',
  bbox box,
  manifest jsonb NOT NULL,
  imported_at timestamptz,
  import_report jsonb
);

CREATE TABLE addresses (
  place_id text NOT NULL,
  row_no integer NOT NULL,                -- position in the source table (ids may repeat there)
  address_id text,
  number integer NOT NULL,
  number_suffix text NOT NULL DEFAULT '',
  street_key text NOT NULL,               -- normalised street name + type + direction (see geocoder)
  street_display text NOT NULL,
  unit text NOT NULL DEFAULT '',
  postcode text NOT NULL DEFAULT '',
  full_address text NOT NULL,
  parcel_ext_id text,
  lon double precision,
  lat double precision,
  PRIMARY KEY (place_id, row_no)
);
CREATE INDEX addresses_street_number ON addresses (place_id, street_key, number);
CREATE INDEX addresses_parcel ON addresses (place_id, parcel_ext_id);

CREATE TABLE parcels (
  place_id text NOT NULL,
  parcel_ext_id text NOT NULL,
  geom json NOT NULL,                     -- MultiPolygon coordinates, lon/lat
  bbox box NOT NULL,
  inside_lon double precision NOT NULL,   -- a point guaranteed inside the lot
  inside_lat double precision NOT NULL,
  area_m2 double precision NOT NULL,
  facts json NOT NULL DEFAULT '{}',       -- derived lot facts (frontage per street, depth, corner)
  attrs json NOT NULL DEFAULT '{}',       -- selected source attributes (assessor land area, use)
  source text NOT NULL,
  vintage text NOT NULL,
  PRIMARY KEY (place_id, parcel_ext_id)
);
CREATE INDEX parcels_bbox ON parcels USING gist (bbox);

CREATE TABLE zones (
  place_id text NOT NULL,
  zone_id text NOT NULL,
  layer text NOT NULL,                    -- 'base' | 'overlay'
  code text NOT NULL,                     -- district code as in the rules file, e.g. 'C-1'
  name text,
  geom json NOT NULL,                     -- MultiPolygon coordinates, lon/lat
  bbox box NOT NULL,
  attrs json NOT NULL DEFAULT '{}',
  PRIMARY KEY (place_id, zone_id)
);
CREATE INDEX zones_bbox ON zones USING gist (bbox);
CREATE INDEX zones_code ON zones (place_id, layer, code);

CREATE TABLE parcel_zones (
  place_id text NOT NULL,
  parcel_ext_id text NOT NULL,
  layer text NOT NULL,
  code text NOT NULL,
  name text,
  share double precision NOT NULL,        -- fraction of the lot's area in this district, 0..1
  attrs json NOT NULL DEFAULT '{}',
  PRIMARY KEY (place_id, parcel_ext_id, layer, code)
);

CREATE TABLE street_segments (
  place_id text NOT NULL,
  segment_id text NOT NULL,
  street_key text NOT NULL,
  street_display text NOT NULL,
  l_from integer, l_to integer, r_from integer, r_to integer,   -- null: no range on that side
  zip_left text, zip_right text,
  geom json NOT NULL,                     -- LineString coordinates, lon/lat
  bbox box NOT NULL,
  PRIMARY KEY (place_id, segment_id)
);
CREATE INDEX street_segments_street ON street_segments (place_id, street_key);
CREATE INDEX street_segments_bbox ON street_segments USING gist (bbox);

CREATE TABLE place_boundaries (
  place_id text PRIMARY KEY,
  geom json NOT NULL,
  bbox box NOT NULL
);

CREATE TABLE import_runs (
  run_id serial PRIMARY KEY,
  place_id text NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  source_digest text NOT NULL,            -- sha256 over the manifest and every source file's checksum
  changed boolean NOT NULL,
  report jsonb NOT NULL
);
CREATE INDEX import_runs_place ON import_runs (place_id, run_id);
