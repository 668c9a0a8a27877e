-- The town's own lot id of each address row (its parcel id column), kept whatever join found the lot
-- (manifest lotBy: id, point or id_then_point), so the accuracy audit can check the id against the
-- point independently. NULL: the address table has no lot id column, or the row's is empty.
ALTER TABLE addresses ADD COLUMN IF NOT EXISTS source_lot_id text;
