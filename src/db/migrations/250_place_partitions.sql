-- The place tables the lookup path reads become PARTITION BY LIST (place_id) (issue 51; docs/scaling.md,
-- "Place tables partitioned by place"), on PostgreSQL and on embedded PGlite alike (one schema, one
-- import path). Each table as it stands becomes its table's DEFAULT partition: no row is copied here,
-- and the parent is declared with the same columns, keys and indexes (the partition's own are attached
-- to them, not built again). migrate() then moves every place out of the default partition into
-- partitions of its own or of its group (movePlacesOutOfDefault, src/db/place-partitions.ts), and every
-- import afterwards loads a place into new partitions beside the live ones and swaps them in.
-- place_postcodes and place_boundaries stay plain tables: a few rows a place, read across places by
-- postcode and by point (partitioned, each such lookup would probe every partition).
ALTER TABLE addresses RENAME TO addresses_default;
ALTER INDEX addresses_pkey RENAME TO addresses_default_pkey;
ALTER INDEX addresses_street_number RENAME TO addresses_default_street_number;
CREATE TABLE addresses (LIKE addresses_default INCLUDING DEFAULTS, CONSTRAINT addresses_pkey PRIMARY KEY (place_id, row_no)) PARTITION BY LIST (place_id);
CREATE INDEX addresses_street_number ON addresses (place_id, street_key, number);
ALTER TABLE addresses ATTACH PARTITION addresses_default DEFAULT;

ALTER TABLE parcels RENAME TO parcels_default;
ALTER INDEX parcels_pkey RENAME TO parcels_default_pkey;
ALTER INDEX parcels_bbox RENAME TO parcels_default_bbox;
CREATE TABLE parcels (LIKE parcels_default INCLUDING DEFAULTS, CONSTRAINT parcels_pkey PRIMARY KEY (place_id, parcel_ext_id)) PARTITION BY LIST (place_id);
CREATE INDEX parcels_bbox ON parcels USING gist (bbox) WITH (buffering = on);
ALTER TABLE parcels ATTACH PARTITION parcels_default DEFAULT;

ALTER TABLE zones RENAME TO zones_default;
ALTER INDEX zones_pkey RENAME TO zones_default_pkey;
ALTER INDEX zones_bbox RENAME TO zones_default_bbox;
ALTER INDEX zones_code RENAME TO zones_default_code;
CREATE TABLE zones (LIKE zones_default INCLUDING DEFAULTS, CONSTRAINT zones_pkey PRIMARY KEY (place_id, zone_id)) PARTITION BY LIST (place_id);
CREATE INDEX zones_bbox ON zones USING gist (bbox) WITH (buffering = on);
CREATE INDEX zones_code ON zones (place_id, layer, code);
ALTER TABLE zones ATTACH PARTITION zones_default DEFAULT;

ALTER TABLE street_segments RENAME TO street_segments_default;
ALTER INDEX street_segments_pkey RENAME TO street_segments_default_pkey;
ALTER INDEX street_segments_street RENAME TO street_segments_default_street;
ALTER INDEX street_segments_bbox RENAME TO street_segments_default_bbox;
CREATE TABLE street_segments (LIKE street_segments_default INCLUDING DEFAULTS, CONSTRAINT street_segments_pkey PRIMARY KEY (place_id, segment_id)) PARTITION BY LIST (place_id);
CREATE INDEX street_segments_street ON street_segments (place_id, street_key);
CREATE INDEX street_segments_bbox ON street_segments USING gist (bbox) WITH (buffering = on);
ALTER TABLE street_segments ATTACH PARTITION street_segments_default DEFAULT;

ALTER TABLE lot_locations RENAME TO lot_locations_default;
ALTER INDEX lot_locations_street RENAME TO lot_locations_default_street;
CREATE TABLE lot_locations (LIKE lot_locations_default INCLUDING DEFAULTS) PARTITION BY LIST (place_id);
CREATE INDEX lot_locations_street ON lot_locations (place_id, street_key, number_lo);
ALTER TABLE lot_locations ATTACH PARTITION lot_locations_default DEFAULT;

-- Which partition holds each place: <table>_p<part> in every partitioned table. `own`: the place's
-- alone (a large place), else a group of small towns. lots and lots_bbox (the box of all its lots)
-- are set at each swap: the grouping rule reads lots, the lot under a point (lotAtPoint) finds the
-- places whose lots can hold the point before it asks their partitions.
CREATE TABLE place_partitions (
  place_id text PRIMARY KEY,
  part integer NOT NULL,
  own boolean NOT NULL,
  lots integer NOT NULL DEFAULT 0,
  lots_bbox box
);
CREATE INDEX place_partitions_part ON place_partitions (part);
CREATE INDEX place_partitions_lots_bbox ON place_partitions USING gist (lots_bbox);
CREATE SEQUENCE place_partition_numbers;
