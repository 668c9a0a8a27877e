-- Postcodes a place's own data holds (Cambridge: ZIP_Left/ZIP_Right of its centrelines), filled by
-- the importer, so place resolution can accept "02139" as Cambridge without scanning geometry tables.
CREATE TABLE place_postcodes (
  place_id text NOT NULL,
  postcode text NOT NULL,
  source text NOT NULL,
  PRIMARY KEY (place_id, postcode)
);
CREATE INDEX place_postcodes_postcode ON place_postcodes (postcode);
