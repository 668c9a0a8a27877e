// Loads a place's parcels together with their derived lot facts and district shares, batch by batch:
// the lots are indexed once (compactly), then each batch of parcel rows is written with its facts and
// its parcel_zones rows. Memory stays at one batch of results whatever the size of the place.
import type { Queryable } from '../db/database.ts';
import { iterateLotFacts, type DeriveOptions, type DeriveReport, type LotFactsInput } from '../core/geo/derive-lot-facts.ts';
import { insertParcelZones, insertParcels, type LoadOptions, type ParcelRow, type ParcelZoneRow } from './load-tables.ts';

export interface LotsLoaded {
  parcels: number;
  shares: number;
  derive: DeriveReport;
}

/**
 * `index` is read once to build the geometry indexes (its parcels must be the same, in the same order,
 * as `rows`); `rows` is read once to write the parcels. Two generators over one source are fine.
 */
export async function insertLotsWithFacts(
  q: Queryable,
  placeId: string,
  index: LotFactsInput,
  rows: Iterable<ParcelRow>,
  opts: LoadOptions & DeriveOptions = {},
): Promise<LotsLoaded> {
  const size = opts.batchSize ?? 5000;
  const facts = iterateLotFacts(index, opts);
  let parcels: ParcelRow[] = [];
  let shares: ParcelZoneRow[] = [];
  let parcelCount = 0;
  let shareCount = 0;
  const flush = async () => {
    if (parcels.length === 0) return;
    parcelCount += await insertParcels(q, placeId, parcels, { batchSize: size });
    shareCount += await insertParcelZones(q, placeId, shares, { batchSize: size * 2 });
    parcels = [];
    shares = [];
    opts.onBatch?.(parcelCount);
  };
  for (const row of rows) {
    const f = facts.next();
    if (f.done) throw new Error(`lot facts ended before parcel ${row.parcelExtId}: index and rows differ`);
    if (f.value.id !== row.parcelExtId) throw new Error(`lot facts for ${f.value.id} arrived with parcel ${row.parcelExtId}: index and rows differ`);
    parcels.push({ ...row, facts: f.value.facts as unknown as Record<string, unknown> });
    for (const z of f.value.zones) shares.push({ parcelExtId: row.parcelExtId, ...z });
    if (parcels.length >= size) await flush();
  }
  await flush();
  const end = facts.next();
  if (!end.done) throw new Error('more lot facts than parcels: index and rows differ');
  return { parcels: parcelCount, shares: shareCount, derive: end.value };
}
