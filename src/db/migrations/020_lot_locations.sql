-- Street addresses a parcel-attribute source (Cambridge: the assessor table's Location) names for its
-- lots, parsed into street key + number range. The geocoder reads them when the address table has no
-- lot for an address (its MapLot is not in the parcel layer, or it has no row): the assessor knows the
-- lot at that address in the parcel layer's own vintage.
CREATE TABLE lot_locations (
  place_id text NOT NULL,
  street_key text NOT NULL,
  number_lo integer NOT NULL,
  number_hi integer NOT NULL,
  number_suffix text NOT NULL DEFAULT '',
  parcel_ext_id text NOT NULL,
  location text NOT NULL,
  source text NOT NULL
);
CREATE INDEX lot_locations_street ON lot_locations (place_id, street_key, number_lo);
