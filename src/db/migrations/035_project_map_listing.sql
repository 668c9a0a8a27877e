-- Project map listing (issue 11, docs/web.md "Public map"). One row per project that has ever been
-- listed. listed says whether the pin is on the public map now; the pin is the build lot's centroid
-- as it was when listed (nothing more precise); first_listed_at is kept after unlisting, because what
-- was public while listed was not un-shared (a later re-listing does not ask the human again).
CREATE TABLE project_map_listings (
  project_id uuid PRIMARY KEY REFERENCES projects (project_id),
  listed boolean NOT NULL,
  listed_at timestamptz,
  first_listed_at timestamptz NOT NULL,
  unlisted_at timestamptz,
  pin_lat double precision NOT NULL,
  pin_lng double precision NOT NULL,
  zone_category text NOT NULL,
  typology text NOT NULL
);
CREATE INDEX project_map_listings_listed ON project_map_listings (listed) WHERE listed;
