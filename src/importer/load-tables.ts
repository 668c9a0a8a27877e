// Batch loaders for the geographic tables: one INSERT ... SELECT FROM unnest($n::type[], ...) per batch,
// one array parameter per column. That is the fastest insert both PGlite and PostgreSQL accept through
// the same SQL, and it keeps memory flat for very large places (the bench loads a 1,000,000-parcel city).
import { CopyLines, type Db, type Queryable } from '../db/database.ts';
import { boxLiteral, type BBox, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';

export interface ParcelRow {
  parcelExtId: string;
  geom: MultiPolygonCoords;
  bbox: BBox;
  insideLon: number;
  insideLat: number;
  areaM2: number;
  attrs?: Record<string, unknown>;
  facts?: Record<string, unknown>;
  /** facts already as JSON text (wins over facts). */
  factsJson?: string;
  /** parcels.zones as JSON text and the primary base district (storedLotBatches in derive-lot-facts.ts). */
  zonesJson?: string;
  primaryZone?: string | null;
  source: string;
  vintage: string;
}

export interface AddressRow {
  rowNo: number;
  addressId: string | null;
  number: number;
  numberSuffix: string;
  streetKey: string;
  streetDisplay: string;
  unit: string;
  postcode: string;
  fullAddress: string;
  parcelExtId: string | null;
  /** The town's own lot id for the row (its parcel id column), whatever join found parcelExtId. */
  sourceLotId?: string | null;
  /** The town's table places the address in a street or public way (manifest rightOfWayParcelIds). */
  inRightOfWay?: boolean;
  lon: number | null;
  lat: number | null;
}

export interface LotLocationRow {
  streetKey: string;
  numberLo: number;
  numberHi: number;
  numberSuffix: string;
  parcelExtId: string;
  location: string;
  source: string;
}

export interface ZoneRow {
  zoneId: string;
  layer: 'base' | 'overlay';
  code: string;
  name: string | null;
  geom: MultiPolygonCoords;
  bbox: BBox;
  attrs?: Record<string, unknown>;
}

export interface StreetSegmentRow {
  segmentId: string;
  streetKey: string;
  streetDisplay: string;
  lFrom: number | null;
  lTo: number | null;
  rFrom: number | null;
  rTo: number | null;
  zipLeft: string | null;
  zipRight: string | null;
  geom: Position[] | Position[][];
  bbox: BBox;
}

export interface LoadOptions {
  /** Rows per INSERT (defaults: parcels and addresses 10,000, street segments 5,000, zones 500; measured on PGlite). */
  batchSize?: number;
  /** Called after each batch with the running count. */
  onBatch?: (loaded: number) => void;
  /**
   * The COPY pipeline to send batches through when the caller loads one table in several calls
   * (the lots' loader: one call per batch of derived facts); the caller drains it. Without one, a
   * call drains its own before it returns.
   */
  pipeline?: CopyPipeline;
  /** The relation to write (a place's new partition, src/db/place-partitions.ts); default the table itself. */
  into?: string;
}

/**
 * COPY batches sent one behind another, each while the next is being encoded: the database writes
 * batch k while this thread turns the rows of batch k+1 into COPY text. On PostgreSQL the two ran in
 * turn before (the server idle while the lines were made, this thread idle during the COPY). A batch
 * is sent only after the one before it is written, so a connection (a transaction's) carries one
 * COPY at a time and rows arrive in order; send() returns once the batch before has been written, so
 * at most two batches are held. A failed batch fails every later send and the drain.
 */
export class CopyPipeline {
  private tail: Promise<void> = Promise.resolve();
  /** Whether a batch may still be being written (the loader then lets the event loop turn while it encodes). */
  busy = false;
  async send(copy: () => Promise<unknown>): Promise<void> {
    const before = this.tail;
    const sent = before.then(async () => {
      await copy();
    });
    this.tail = sent;
    this.busy = true;
    // Its failure is heard by the next send or by drain(); this handler only keeps it from being unhandled meanwhile.
    sent.then(
      () => {
        if (this.tail === sent) this.busy = false;
      },
      () => undefined,
    );
    await before;
  }
  /** Waits for every batch sent; rejects with the first failure. */
  drain(): Promise<void> {
    return this.tail;
  }
}

/** Rows encoded between two turns of the event loop while a COPY is being written (its handshake and data need the loop). */
const YIELD_EVERY_ROWS = 1024;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A column: its name, its array type for unnest, and its value for a row (`i`: the row's position in the call). */
type Column<R> = { name: string; type: string; cast?: string; get: (r: R, i: number) => unknown };

/**
 * Inserts rows in batches: COPY where the backend offers it (PGlite, PostgreSQL), otherwise one
 * INSERT ... SELECT FROM unnest per batch. Returns the number of rows written (with the caller's
 * pipeline: sent, written once the caller has drained it).
 */
async function insertBatched<R>(
  q: Queryable,
  table: string,
  placeId: string,
  columns: Column<R>[],
  rows: Iterable<R>,
  opts: LoadOptions = {},
): Promise<number> {
  const size = opts.batchSize ?? 2000;
  const into = opts.into ?? table;
  const names = columns.map((c) => c.name);
  const sql =
    `INSERT INTO ${into} (place_id, ${names.join(', ')}) SELECT $1, ${columns.map((c, i) => (c.cast ? `c${i}::${c.cast}` : `c${i}`)).join(', ')} ` +
    `FROM unnest(${columns.map((c, i) => `$${i + 2}::${c.type}[]`).join(', ')}) AS t(${columns.map((_, i) => `c${i}`).join(', ')})`;
  const copy = q.copyRows?.bind(q);
  let total = 0;
  // COPY: each row is encoded as its text line at once, into one UTF-8 buffer per batch (no string
  // kept per row), and the batch goes through the pipeline; INSERT: one value array per row, turned
  // into column arrays per batch.
  const lines = copy ? new CopyLines() : null;
  const pipeline = copy ? (opts.pipeline ?? new CopyPipeline()) : null;
  let batch: unknown[][] = [];
  const scratch: unknown[] = [placeId];
  const pending = () => (lines ? lines.rows : batch.length);
  const copyColumns = ['place_id', ...names];
  const flush = async () => {
    const n = pending();
    if (n === 0) return;
    if (copy && lines && pipeline) {
      const full = lines.detach();
      await pipeline.send(async () => {
        await copy(into, copyColumns, full);
        total += n;
        opts.onBatch?.(total);
      });
      return;
    }
    const cols: unknown[][] = columns.map(() => []);
    for (const row of batch) for (let i = 0; i < columns.length; i++) cols[i]!.push(row[i + 1]);
    await q.query(sql, [placeId, ...cols]);
    batch = [];
    total += n;
    opts.onBatch?.(total);
  };
  let at = 0;
  for (const r of rows) {
    if (lines) {
      for (let i = 0; i < columns.length; i++) scratch[i + 1] = columns[i]!.get(r, at);
      lines.addRow(scratch);
    } else {
      const row: unknown[] = [placeId];
      for (const c of columns) row.push(c.get(r, at));
      batch.push(row);
    }
    at++;
    if (pending() >= size) await flush();
    else if (pipeline?.busy && at % YIELD_EVERY_ROWS === 0) await nextTurn();
  }
  await flush();
  if (pipeline && !opts.pipeline) await pipeline.drain();
  return at;
}

const json = (v: unknown) => JSON.stringify(v ?? {});

/**
 * Lot facts derived for a call's rows, by position (row k of the call takes facts[k], zones[k] and
 * primary[k]): they win over the rows' own factsJson, zonesJson and primaryZone, so a loader need not
 * copy every row to attach them.
 */
export interface DerivedParcelColumns {
  facts: readonly string[];
  zones: readonly string[];
  primary: readonly (string | null)[];
}

export function insertParcels(q: Queryable, placeId: string, rows: Iterable<ParcelRow>, opts?: LoadOptions, derived?: DerivedParcelColumns): Promise<number> {
  return insertBatched<ParcelRow>(
    q,
    'parcels',
    placeId,
    [
      { name: 'parcel_ext_id', type: 'text', get: (r) => r.parcelExtId },
      { name: 'geom', type: 'text', cast: 'json', get: (r) => JSON.stringify(r.geom) },
      { name: 'bbox', type: 'text', cast: 'box', get: (r) => boxLiteral(r.bbox) },
      { name: 'inside_lon', type: 'float8', get: (r) => r.insideLon },
      { name: 'inside_lat', type: 'float8', get: (r) => r.insideLat },
      { name: 'area_m2', type: 'float8', get: (r) => r.areaM2 },
      { name: 'facts', type: 'text', cast: 'json', get: derived ? (_r, i) => derived.facts[i] : (r) => r.factsJson ?? json(r.facts) },
      { name: 'zones', type: 'text', cast: 'json', get: derived ? (_r, i) => derived.zones[i] : (r) => r.zonesJson ?? '[]' },
      { name: 'primary_zone', type: 'text', get: derived ? (_r, i) => derived.primary[i] : (r) => r.primaryZone ?? null },
      { name: 'attrs', type: 'text', cast: 'json', get: (r) => json(r.attrs) },
      { name: 'source', type: 'text', get: (r) => r.source },
      { name: 'vintage', type: 'text', get: (r) => r.vintage },
    ],
    rows,
    { batchSize: 10_000, ...opts },
  );
}

export function insertAddresses(q: Queryable, placeId: string, rows: Iterable<AddressRow>, opts?: LoadOptions): Promise<number> {
  return insertBatched<AddressRow>(
    q,
    'addresses',
    placeId,
    [
      { name: 'row_no', type: 'int4', get: (r) => r.rowNo },
      { name: 'address_id', type: 'text', get: (r) => r.addressId },
      { name: 'number', type: 'int4', get: (r) => r.number },
      { name: 'number_suffix', type: 'text', get: (r) => r.numberSuffix },
      { name: 'street_key', type: 'text', get: (r) => r.streetKey },
      { name: 'street_display', type: 'text', get: (r) => r.streetDisplay },
      { name: 'unit', type: 'text', get: (r) => r.unit },
      { name: 'postcode', type: 'text', get: (r) => r.postcode },
      { name: 'full_address', type: 'text', get: (r) => r.fullAddress },
      { name: 'parcel_ext_id', type: 'text', get: (r) => r.parcelExtId },
      { name: 'source_lot_id', type: 'text', get: (r) => r.sourceLotId ?? null },
      { name: 'in_right_of_way', type: 'text', cast: 'boolean', get: (r) => (r.inRightOfWay ? 'true' : 'false') },
      { name: 'lon', type: 'float8', get: (r) => r.lon },
      { name: 'lat', type: 'float8', get: (r) => r.lat },
    ],
    rows,
    { batchSize: 10_000, ...opts },
  );
}

export function insertZones(q: Queryable, placeId: string, rows: Iterable<ZoneRow>, opts?: LoadOptions): Promise<number> {
  return insertBatched<ZoneRow>(
    q,
    'zones',
    placeId,
    [
      { name: 'zone_id', type: 'text', get: (r) => r.zoneId },
      { name: 'layer', type: 'text', get: (r) => r.layer },
      { name: 'code', type: 'text', get: (r) => r.code },
      { name: 'name', type: 'text', get: (r) => r.name },
      { name: 'geom', type: 'text', cast: 'json', get: (r) => JSON.stringify(r.geom) },
      { name: 'bbox', type: 'text', cast: 'box', get: (r) => boxLiteral(r.bbox) },
      { name: 'attrs', type: 'text', cast: 'json', get: (r) => json(r.attrs) },
    ],
    rows,
    { batchSize: 500, ...opts },
  );
}

export function insertStreetSegments(q: Queryable, placeId: string, rows: Iterable<StreetSegmentRow>, opts?: LoadOptions): Promise<number> {
  return insertBatched<StreetSegmentRow>(
    q,
    'street_segments',
    placeId,
    [
      { name: 'segment_id', type: 'text', get: (r) => r.segmentId },
      { name: 'street_key', type: 'text', get: (r) => r.streetKey },
      { name: 'street_display', type: 'text', get: (r) => r.streetDisplay },
      { name: 'l_from', type: 'int4', get: (r) => r.lFrom },
      { name: 'l_to', type: 'int4', get: (r) => r.lTo },
      { name: 'r_from', type: 'int4', get: (r) => r.rFrom },
      { name: 'r_to', type: 'int4', get: (r) => r.rTo },
      { name: 'zip_left', type: 'text', get: (r) => r.zipLeft },
      { name: 'zip_right', type: 'text', get: (r) => r.zipRight },
      { name: 'geom', type: 'text', cast: 'json', get: (r) => JSON.stringify(r.geom) },
      { name: 'bbox', type: 'text', cast: 'box', get: (r) => boxLiteral(r.bbox) },
    ],
    rows,
    opts,
  );
}

export function insertLotLocations(q: Queryable, placeId: string, rows: Iterable<LotLocationRow>, opts?: LoadOptions): Promise<number> {
  return insertBatched<LotLocationRow>(
    q,
    'lot_locations',
    placeId,
    [
      { name: 'street_key', type: 'text', get: (r) => r.streetKey },
      { name: 'number_lo', type: 'int4', get: (r) => r.numberLo },
      { name: 'number_hi', type: 'int4', get: (r) => r.numberHi },
      { name: 'number_suffix', type: 'text', get: (r) => r.numberSuffix },
      { name: 'parcel_ext_id', type: 'text', get: (r) => r.parcelExtId },
      { name: 'location', type: 'text', get: (r) => r.location },
      { name: 'source', type: 'text', get: (r) => r.source },
    ],
    rows,
    { batchSize: 10_000, ...opts },
  );
}

/** The geographic tables: the rows a place owns. */
const PLACE_TABLES = ['addresses', 'parcels', 'zones', 'street_segments', 'place_boundaries', 'place_postcodes', 'lot_locations'] as const;

/** Removes every row a place owns in the geographic tables (the catalogue row stays). */
export async function deletePlaceRows(q: Queryable, placeId: string): Promise<void> {
  for (const table of PLACE_TABLES) {
    await q.query(`DELETE FROM ${table} WHERE place_id = $1`, [placeId]);
  }
}

/**
 * Gathers the planner's statistics on the geographic tables after a load. Embedded PGlite runs no
 * autovacuum, so without this its tables never had any: the planner then guessed that `place_id = $1`
 * keeps 0.5 % of the rows, and answered `place_id = $1 AND bbox && box` (the geocoder's lots near a
 * point, the map's tiles, the lots around a project) by intersecting the box index with a scan of the
 * place's whole primary-key range: 80 ms a lookup in a million-lot place on PGlite, against 0.4 ms
 * with statistics (docs/architecture.md, "Statistics after a load"). On PostgreSQL autovacuum would
 * catch up within a minute or so, and not at all when the place is a small share of a large table. ANALYZE
 * reads a sample of at most 30,000 rows a table: about a second after a million-lot load. Run in the
 * import's transaction, the statistics commit with the rows. An import analyses its new partitions
 * (src/db/place-partitions.ts, finishPlaceLoad) and the plain place tables it rewrote (`tables`): on a
 * partitioned parent ANALYZE would read every partition of every place.
 */
export async function analyzePlaceTables(q: Queryable, tables: readonly string[] = PLACE_TABLES): Promise<void> {
  await q.query(`ANALYZE ${tables.join(', ')}`);
}

/**
 * Indexes a bulk load may drop and rebuild (as declared in the migrations): each with the statement
 * that drops it and the one that builds it again. The parcels' primary key is one of them: its keys
 * arrive in no order, and a sorted build afterwards costs about half of keeping it row by row
 * (measured on PGlite: 200,000 parcels, 0.35 s against 0.8 s of the COPY). The box indexes use GiST's
 * buffering build (migration 151): built from a full table it is quicker, and its tree answers a
 * point lookup in fewer page visits than one built by inserting the rows one by one.
 */
export interface BulkIndex {
  readonly index: string;
  readonly drop: string;
  readonly create: string;
  /** A statement that completes the build (the primary key made of its index). */
  readonly then?: string;
}
const BULK_INDEXES: Record<'parcels' | 'zones' | 'street_segments' | 'addresses', readonly BulkIndex[]> = {
  parcels: [
    {
      index: 'parcels_bbox',
      drop: 'DROP INDEX IF EXISTS parcels_bbox',
      create: 'CREATE INDEX parcels_bbox ON parcels USING gist (bbox) WITH (buffering = on)',
    },
    // The key is built again as the parent's constraint: on a partitioned table (migration 250) that
    // builds each partition's key (a key cannot be made of an index built beforehand there).
    {
      index: 'parcels_pkey',
      drop: 'ALTER TABLE parcels DROP CONSTRAINT IF EXISTS parcels_pkey',
      create: 'ALTER TABLE parcels ADD CONSTRAINT parcels_pkey PRIMARY KEY (place_id, parcel_ext_id)',
    },
  ],
  zones: [{ index: 'zones_bbox', drop: 'DROP INDEX IF EXISTS zones_bbox', create: 'CREATE INDEX zones_bbox ON zones USING gist (bbox) WITH (buffering = on)' }],
  street_segments: [
    {
      index: 'street_segments_bbox',
      drop: 'DROP INDEX IF EXISTS street_segments_bbox',
      create: 'CREATE INDEX street_segments_bbox ON street_segments USING gist (bbox) WITH (buffering = on)',
    },
  ],
  addresses: [
    {
      index: 'addresses_street_number',
      drop: 'DROP INDEX IF EXISTS addresses_street_number',
      create: 'CREATE INDEX addresses_street_number ON addresses (place_id, street_key, number)',
    },
  ],
};

/** One of the indexes a bulk load rebuilds, with its statements (the bench builds the parcels' box index with them). */
export function bulkIndex(index: string): BulkIndex {
  const found = Object.values(BULK_INDEXES)
    .flat()
    .find((b) => b.index === index);
  if (!found) throw new Error(`${index} is not an index a bulk load rebuilds`);
  return found;
}

/**
 * Runs a bulk load with the tables' indexes dropped and builds them once afterwards: building an
 * index once is several times faster than growing it row by row (measured on PGlite: 100,000
 * parcels' GiST index). Only for embedded PGlite, where nothing else reads during the load; on a
 * PostgreSQL server a dropped index would block readers until the import commits. Run it inside the
 * import's transaction: a load that fails rolls the drops back with it. Without the primary key, a
 * parcel id loaded twice is found when the key is built again, and fails the load there. Given a
 * PostgreSQL pool instead (the bench's load into a database of its own, which no one else reads),
 * the indexes are built side by side on several connections.
 */
export async function withIndexesDeferred<T>(
  q: Queryable,
  tables: readonly (keyof typeof BULK_INDEXES)[],
  fn: () => Promise<T>,
  /** Told each index built again and how long it took (the bench says where an import's time goes). */
  onBuilt?: (index: string, ms: number) => void,
): Promise<T> {
  for (const t of tables) for (const { drop } of BULK_INDEXES[t]) await q.query(drop);
  const result = await fn();
  const build = async ({ index, create, then }: BulkIndex) => {
    const t0 = performance.now();
    await q.query(create);
    if (then) await q.query(then);
    onBuilt?.(index, performance.now() - t0);
  };
  const builds: BulkIndex[] = tables.flatMap((t) => BULK_INDEXES[t]);
  if (isPostgresPool(q)) {
    // Outside a transaction on a PostgreSQL server each statement takes a connection of its own: the
    // builds run side by side (one backend each) instead of one after another on one connection.
    const settled = await Promise.allSettled(builds.map(build));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  } else {
    for (const b of builds) await build(b);
  }
  return result;
}

/** A PostgreSQL pool (not a transaction, not PGlite): statements on it may run on several connections at once. */
function isPostgresPool(q: Queryable): boolean {
  return (q as Partial<Db>).kind === 'postgres' && typeof (q as Partial<Db>).transaction === 'function';
}
