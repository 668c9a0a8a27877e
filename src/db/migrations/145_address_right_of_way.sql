-- An address the town's own table places in a street or public way (its lot id is one the manifest
-- names as a right of way, e.g. Cambridge's "ROAD-"): never answered with a private lot (issue 27).
ALTER TABLE addresses ADD COLUMN IF NOT EXISTS in_right_of_way boolean NOT NULL DEFAULT false;
