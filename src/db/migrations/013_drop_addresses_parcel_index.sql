-- No query looks addresses up by parcel (the geocoder goes address -> parcel by the parcels' primary
-- key), so this index only cost every import its build (about 2 s per million addresses on PGlite).
DROP INDEX IF EXISTS addresses_parcel;
