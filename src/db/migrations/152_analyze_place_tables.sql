-- Statistics for the places already loaded. An import now gathers the planner's statistics on the
-- geographic tables after its load (analyzePlaceTables, src/importer/load-tables.ts); embedded PGlite
-- runs no autovacuum, so a database whose places were imported before that never had any, and a
-- lookup by place and box (`place_id = $1 AND bbox && $2`) scanned the place's whole key range.
-- ANALYZE reads a sample of each table: seconds at most, once.
ANALYZE addresses, parcels, zones, street_segments, place_boundaries, place_postcodes, lot_locations;
