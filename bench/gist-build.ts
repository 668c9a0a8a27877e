// The parcels' box index built two ways over the same rows, in the same run: GiST's buffering build (what
// migration 151 declares and an import's bulk load uses) against the default build, which inserts the
// rows into the tree one by one. For each: the build's wall time, and the lots-at-a-point query (the
// audit's, src/importer/audit-place.ts) at the inside points of a fixed sample of lots. Each build starts
// after a CHECKPOINT, with the table's pages in the file cache (the load and the lookups before it read
// them); the default build goes first, and the buffering build's index is left in place.
import type { Db } from '../src/db/database.ts';
import { LOTS_AT_POINT_IN_PLACE_SQL } from '../src/importer/audit-addresses.ts';
import { bulkIndex } from '../src/importer/load-tables.ts';
import { boxLiteral } from '../src/core/geo/primitives.ts';
import { timeEach } from './measure.ts';

export interface BoxIndexBuild {
  buildMs: number;
  lookup: { p50: number; p99: number; mean: number; n: number };
}

export interface BoxIndexCompare {
  buffered: BoxIndexBuild;
  unbuffered: BoxIndexBuild;
}

export async function compareBoxIndexBuilds(db: Db, placeId: string, points = 4000): Promise<BoxIndexCompare> {
  // A fixed sample spread over the place (ordered by a hash of the id, not by position).
  const sample = (
    await db.query<{ inside_lon: number; inside_lat: number }>(
      'SELECT inside_lon, inside_lat FROM parcels WHERE place_id = $1 ORDER BY md5(parcel_ext_id) LIMIT $2',
      [placeId, points],
    )
  ).map((r) => boxLiteral([r.inside_lon, r.inside_lat, r.inside_lon, r.inside_lat]));
  const importers = bulkIndex('parcels_bbox');
  const build = async (create: string): Promise<BoxIndexBuild> => {
    await db.query(importers.drop);
    await db.query('CHECKPOINT');
    const t0 = performance.now();
    await db.query(create);
    const buildMs = performance.now() - t0;
    const lookupOnce = () => timeEach(sample, (box) => db.query(LOTS_AT_POINT_IN_PLACE_SQL, [placeId, box]));
    await lookupOnce(); // the index's pages read once, as the other build's were
    return { buildMs, lookup: await lookupOnce() };
  };
  const unbuffered = await build('CREATE INDEX parcels_bbox ON parcels USING gist (bbox)');
  const buffered = await build(importers.create); // the importer's own build, as migration 151 declares the index
  return { buffered, unbuffered };
}
