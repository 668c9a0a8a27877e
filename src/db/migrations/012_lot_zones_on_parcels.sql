-- A lot's districts (base and overlay, with their area shares) move from the parcel_zones table onto
-- the parcel row, as a json array ordered largest share first. They are derived and written together
-- with the parcel, read together with it by every snapshot (one primary-key lookup instead of a join
-- and an aggregate), and a million-lot import no longer writes a million extra rows.
-- primary_zone (the largest base district) keeps the parcel -> zone join rate a plain column test.
-- parcel_zones itself stays for now, no longer written: an instance of the previous version sharing
-- this PostgreSQL database during a rolling deploy still reads it. A later migration drops it.
ALTER TABLE parcels ADD COLUMN zones json NOT NULL DEFAULT '[]';
ALTER TABLE parcels ADD COLUMN primary_zone text;
UPDATE parcels p
   SET zones = s.zones, primary_zone = s.primary_zone
  FROM (SELECT place_id, parcel_ext_id,
               json_agg(json_build_object('layer', layer, 'code', code, 'name', name, 'share', share, 'attrs', attrs)
                        ORDER BY share DESC, code) AS zones,
               (array_agg(code ORDER BY share DESC, code) FILTER (WHERE layer = 'base'))[1] AS primary_zone
          FROM parcel_zones
         GROUP BY place_id, parcel_ext_id) s
 WHERE p.place_id = s.place_id AND p.parcel_ext_id = s.parcel_ext_id;
