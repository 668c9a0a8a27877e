// The lookup path's data: what the geocoder and the snapshot read about one place (address rows,
// assessor lot locations, street segments, parcels by bbox, one parcel's lot row), from one of two
// sources that answer every read identically:
//   - SQL (the database, the truth): one indexed query per read;
//   - a per-place hot index in memory, loaded from the database once per import of the place and read
//     without a query. A snapshot then costs no database round trip (docs/architecture.md, "Hot path").
// Invalidation: the index is tagged with the place's import version (places.imported_at, read in the
// same breath as the rows, before and after the load: an import committed during the load discards it).
// Callers pass the place record they resolved (catalogue rows, cached 5 s): a different importedAt
// (a re-import here, or another instance's import on a shared PostgreSQL database, seen when the
// catalogue cache refreshes) or the context's placeChanged door (src/caches.ts, opened by the importer) makes the next read reload it.
// While a place's index is cold or loading, reads go to SQL; the loaded indexes share a byte budget,
// least recently used evicted first (below, "the bounded hot index"). The lot columns and the lot
// reads are the lot store's (src/lots/lot-store.ts); this module holds the address and street tables.
import type { Queryable } from '../db/database.ts';
import type { BBox } from '../core/geo/primitives.ts';
import { CHUNK, Strings, chunkOf, cmp, grown, stringBytes, stringsBytes, tableBytes, valueBytes, type TypedColumn } from '../lots/columns.ts';
import { LotStore, sqlLots, type LotRow } from '../lots/lot-store.ts';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';
import { placeOwnership, type OwnedPlace } from '../places/place-ownership.ts';

export interface AddressRow {
  number: number;
  number_suffix: string;
  unit: string;
  full_address: string;
  street_display: string;
  postcode: string;
  parcel_ext_id: string | null;
  lon: number | null;
  lat: number | null;
  inside_lon: number | null;
  inside_lat: number | null;
  has_parcel: boolean;
  row_no: number;
  /** The town's table places the address in a street or public way. */
  in_right_of_way: boolean;
}

export interface LocationRow {
  parcel_ext_id: string;
  location: string;
  number_lo: number;
  number_hi: number;
  number_suffix: string;
  inside_lon: number;
  inside_lat: number;
  source: string;
}

export interface NeighbourRow {
  number: number;
  parcel_ext_id: string;
  inside_lon: number;
  inside_lat: number;
  street_display: string;
}

export interface SegmentRow {
  segment_id: string;
  street_display: string;
  l_from: number | null;
  l_to: number | null;
  r_from: number | null;
  r_to: number | null;
  zip_left: string | null;
  zip_right: string | null;
  geom: unknown;
}

type MaybePromise<T> = T | Promise<T>;

/** Every read the lookup path makes about one place. */
export interface GeoSource {
  readonly kind: 'sql' | 'memory';
  /** Address-table rows for (street, number), with their lot's inside point; by row_no. */
  addressRows(key: string, number: number): MaybePromise<AddressRow[]>;
  /** Assessor locations on the street whose range may hold the number, lot in the parcel layer; by lot id, location. */
  locationRows(key: string, number: number): MaybePromise<LocationRow[]>;
  /** The nearest numbers below and above on the same side (within gap), with a lot. */
  neighbourRows(key: string, number: number, gap: number): MaybePromise<NeighbourRow[]>;
  /** The street's centreline segments, by segment id. */
  segments(key: string): MaybePromise<SegmentRow[]>;
  /** Whether the place has a street layer at all (a centreline of any street). */
  hasStreetLayer(): MaybePromise<boolean>;
  /** Lots whose bbox meets the box, by lot id, with their geometry. */
  parcelsInBox(box: BBox): MaybePromise<{ parcel_ext_id: string; geom: unknown }[]>;
  /** One lot as the snapshot reads it; null when the parcel layer has no such lot. */
  lot(parcelExtId: string): MaybePromise<LotRow | null>;
  /** Whether the lot has a base district; null when the parcel layer has no such lot. */
  lotHasZone(parcelExtId: string): MaybePromise<boolean | null>;
  /** The postcodes the place's own data holds (place_postcodes), as stored; empty when it holds none. */
  postcodes(): MaybePromise<ReadonlySet<string>>;
}

/** The database as the source: one query per read (the statements the geocoder always ran). */
export function sqlSource(db: Queryable, placeId: string): GeoSource {
  return {
    kind: 'sql',
    addressRows: (key, number) =>
      db.query<AddressRow>(
        `SELECT a.row_no, a.number, a.number_suffix, a.unit, a.full_address, a.street_display, a.postcode, a.parcel_ext_id,
                a.lon, a.lat, p.inside_lon, p.inside_lat, (p.parcel_ext_id IS NOT NULL) AS has_parcel, a.in_right_of_way
           FROM addresses a
           LEFT JOIN parcels p ON p.place_id = a.place_id AND p.parcel_ext_id = a.parcel_ext_id
          WHERE a.place_id = $1 AND a.street_key = $2 AND a.number = $3
          ORDER BY a.row_no`,
        [placeId, key, number],
      ),
    locationRows: (key, number) =>
      db.query<LocationRow>(
        `SELECT l.parcel_ext_id, l.location, l.number_lo, l.number_hi, l.number_suffix, l.source, p.inside_lon, p.inside_lat
           FROM lot_locations l JOIN parcels p ON p.place_id = l.place_id AND p.parcel_ext_id = l.parcel_ext_id
          WHERE l.place_id = $1 AND l.street_key = $2 AND l.number_lo <= $3 AND l.number_lo >= $3 - 40 AND l.number_hi >= $3
          ORDER BY l.parcel_ext_id, l.location`,
        [placeId, key, number],
      ),
    neighbourRows: (key, number, gap) =>
      db.query<NeighbourRow>(
        `(SELECT a.number, a.parcel_ext_id, p.inside_lon, p.inside_lat, a.street_display
            FROM addresses a JOIN parcels p ON p.place_id = a.place_id AND p.parcel_ext_id = a.parcel_ext_id
           WHERE a.place_id = $1 AND a.street_key = $2 AND a.number < $3 AND a.number >= $3 - $4 AND a.number % 2 = $3 % 2
           ORDER BY a.number DESC, a.row_no LIMIT 1)
         UNION ALL
         (SELECT a.number, a.parcel_ext_id, p.inside_lon, p.inside_lat, a.street_display
            FROM addresses a JOIN parcels p ON p.place_id = a.place_id AND p.parcel_ext_id = a.parcel_ext_id
           WHERE a.place_id = $1 AND a.street_key = $2 AND a.number > $3 AND a.number <= $3 + $4 AND a.number % 2 = $3 % 2
           ORDER BY a.number ASC, a.row_no LIMIT 1)`,
        [placeId, key, number, gap],
      ),
    segments: (key) =>
      db.query<SegmentRow>(
        `SELECT segment_id, street_display, l_from, l_to, r_from, r_to, zip_left, zip_right, geom
           FROM street_segments WHERE place_id = $1 AND street_key = $2 ORDER BY segment_id`,
        [placeId, key],
      ),
    hasStreetLayer: async () => (await db.query('SELECT 1 FROM street_segments WHERE place_id = $1 LIMIT 1', [placeId])).length > 0,
    ...sqlLots(db, placeId),
    postcodes: async () =>
      new Set((await db.query<{ postcode: string }>('SELECT postcode FROM place_postcodes WHERE place_id = $1', [placeId])).map((r) => r.postcode)),
  };
}

// ---- the hot index ------------------------------------------------------------------------------

interface LocEntry {
  lo: number;
  hi: number;
  suffix: string;
  ext: string;
  location: string;
  source: string;
  p: number;
}
interface AddressChunkRow {
  row_no: number;
  number: number;
  number_suffix: string;
  unit: string;
  full_address: string;
  street_key: string;
  street_display: string;
  postcode: string;
  parcel_ext_id: string | null;
  lon: number | null;
  lat: number | null;
  in_right_of_way: boolean;
}

/** One place's hot index: columns in typed arrays, strings interned, parcels in id order. */
export class PlaceIndex implements GeoSource {
  readonly kind = 'memory' as const;
  // the place's lots (ids, inside points, the rows the snapshot reads): src/lots/lot-store.ts
  private lots!: LotStore;
  // addresses (sorted by street key, number, row_no)
  private streets = new Map<string, { start: number; end: number }>();
  private aRow!: Int32Array;
  private aNum!: Int32Array;
  private aParcel!: Int32Array; // -1: no lot in the parcel layer
  private aSuffix!: Int32Array;
  private aUnit!: Int32Array;
  private aPostcode!: Int32Array;
  private aDisplay!: Int32Array;
  private aFull: (string | null)[] = []; // null: "<number> <display>"
  private aLon: Float64Array | null = null; // null: no address has a point of its own
  private aLat: Float64Array | null = null;
  private aExtMissing = new Map<number, string>(); // parcel_ext_id of rows whose lot is not in the parcel layer
  private aRightOfWay = new Set<number>(); // rows the town's table places in a street or public way
  private strings: string[] = [];
  private locations = new Map<string, LocEntry[]>();
  private segs = new Map<string, SegmentRow[]>();
  /** Rows held, for the report. */
  counts = { parcels: 0, addresses: 0, locations: 0, segments: 0, geometry: false };
  /** Load time per table (ms). */
  loadMs: Record<string, number> = {};
  /** Estimated heap bytes (what the byte budget counts), set when loaded. */
  bytes = 0;

  private constructor(
    readonly placeId: string,
    readonly version: string,
  ) {}

  /**
   * Loads a place from the database; null when its import version is not `version` (before or after
   * the load: an import committed meanwhile).
   */
  static async load(db: Queryable, placeId: string, version: string): Promise<PlaceIndex | null> {
    const versionNow = async () => {
      const r = await db.query<{ imported_at: Date | string | null }>('SELECT imported_at FROM places WHERE place_id = $1', [placeId]);
      return r[0]?.imported_at ? new Date(r[0].imported_at).toISOString() : null;
    };
    if ((await versionNow()) !== version) return null;
    const ix = new PlaceIndex(placeId, version);
    const timed = async (k: string, f: () => Promise<void>) => {
      const t0 = performance.now();
      await f();
      ix.loadMs[k] = Math.round(performance.now() - t0);
    };
    await timed('parcels', async () => {
      ix.lots = await LotStore.load(db, placeId);
      ix.counts.parcels = ix.lots.count;
      ix.counts.geometry = ix.lots.geometry;
    });
    await timed('addresses', () => ix.loadAddresses(db));
    await timed('locations', () => ix.loadLocations(db));
    await timed('segments', () => ix.loadSegments(db));
    ix.postcodeSet = await sqlSource(db, placeId).postcodes();
    if ((await versionNow()) !== version) return null;
    ix.bytes = ix.estimateBytes();
    return ix;
  }

  // Long because: one chunked read into typed columns and one sort over them, with no row object per address.
  private async loadAddresses(db: Queryable): Promise<void> {
    // Read in chunks into columns (no row objects kept), then ordered by street key, number, row_no.
    const strings = new Strings();
    const keys = new Strings();
    let cap = CHUNK;
    let key = new Int32Array(cap);
    let rowNo = new Int32Array(cap);
    let num = new Int32Array(cap);
    let parcel = new Int32Array(cap);
    let suffix = new Int32Array(cap);
    let unit = new Int32Array(cap);
    let postcode = new Int32Array(cap);
    let display = new Int32Array(cap);
    let lon = new Float64Array(cap);
    let lat = new Float64Array(cap);
    const full: (string | null)[] = [];
    const missing = new Map<number, string>();
    const rightOfWay = new Set<number>();
    let n = 0;
    // Chunks by row_no range (the primary key): bounded reads whatever the planner knows.
    const span = (
      await db.query<{ lo: number | null; hi: number | null }>('SELECT min(row_no) AS lo, max(row_no) AS hi FROM addresses WHERE place_id = $1', [this.placeId])
    )[0];
    for (let from = span?.lo ?? 0, to = span?.hi ?? -1; from <= to; from += CHUNK) {
      const chunk = await chunkOf<AddressChunkRow>(
        db,
        `SELECT row_no, number, number_suffix, unit, full_address, street_key, street_display, postcode, parcel_ext_id, lon, lat, in_right_of_way
           FROM addresses WHERE place_id = $1 AND row_no >= $2 AND row_no < $3`,
        [this.placeId, from, from + CHUNK],
        'row_no',
      );
      if (chunk.length === 0) continue;
      if (n + chunk.length > cap) {
        cap = Math.max(cap * 2, n + chunk.length);
        const grow = <T extends TypedColumn>(a: T): T => grown(a, cap);
        key = grow(key);
        rowNo = grow(rowNo);
        num = grow(num);
        parcel = grow(parcel);
        suffix = grow(suffix);
        unit = grow(unit);
        postcode = grow(postcode);
        display = grow(display);
        lon = grow(lon);
        lat = grow(lat);
      }
      for (const r of chunk) {
        const i = n++;
        key[i] = keys.id(r.street_key);
        rowNo[i] = r.row_no;
        num[i] = r.number;
        const p = r.parcel_ext_id === null ? -1 : this.lots.parcelIndex(r.parcel_ext_id);
        parcel[i] = p;
        if (p < 0 && r.parcel_ext_id !== null) missing.set(i, r.parcel_ext_id);
        if (r.in_right_of_way) rightOfWay.add(i);
        suffix[i] = strings.id(r.number_suffix);
        unit[i] = strings.id(r.unit);
        postcode[i] = strings.id(r.postcode);
        display[i] = strings.id(r.street_display);
        full.push(r.full_address === `${r.number} ${r.street_display}` ? null : r.full_address);
        lon[i] = r.lon ?? Number.NaN;
        lat[i] = r.lat ?? Number.NaN;
      }
    }
    const keyText = keys.done();
    // rank of each key in code-unit order, so the sort compares integers
    const keyRank = new Int32Array(keyText.length);
    Int32Array.from(keyText.keys())
      .sort((x, y) => cmp(keyText[x]!, keyText[y]!))
      .forEach((k, r) => (keyRank[k] = r));
    const order = Int32Array.from({ length: n }, (_, i) => i).sort(
      (x, y) => keyRank[key[x]!]! - keyRank[key[y]!]! || num[x]! - num[y]! || rowNo[x]! - rowNo[y]!,
    );
    const take = <T extends Float64Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      for (let j = 0; j < n; j++) b[j] = a[order[j]!]!;
      return b;
    };
    this.aRow = take(rowNo);
    this.aNum = take(num);
    this.aParcel = take(parcel);
    this.aSuffix = take(suffix);
    this.aUnit = take(unit);
    this.aPostcode = take(postcode);
    this.aDisplay = take(display);
    let points = false;
    for (let j = 0; j < n && !points; j++) points = !Number.isNaN(lon[j]!) || !Number.isNaN(lat[j]!);
    this.aLon = points ? take(lon) : null;
    this.aLat = points ? take(lat) : null;
    this.aFull = Array.from(order, (i) => full[i]!);
    for (let j = 0; j < n; j++) {
      const i = order[j]!;
      const m = missing.get(i);
      if (m !== undefined) this.aExtMissing.set(j, m);
      if (rightOfWay.has(i)) this.aRightOfWay.add(j);
      const k = keyText[key[i]!]!;
      const cur = this.streets.get(k);
      if (cur) cur.end = j + 1;
      else this.streets.set(k, { start: j, end: j + 1 });
    }
    this.strings = strings.done();
    this.counts.addresses = n;
  }

  private async loadLocations(db: Queryable): Promise<void> {
    const rows = await chunkOf<{
      street_key: string;
      number_lo: number;
      number_hi: number;
      number_suffix: string;
      parcel_ext_id: string;
      location: string;
      source: string;
    }>(
      db,
      `SELECT street_key, number_lo, number_hi, number_suffix, parcel_ext_id, location, source FROM lot_locations WHERE place_id = $1`,
      [this.placeId],
      'street_key',
    );
    for (const r of rows) {
      const p = this.lots.parcelIndex(r.parcel_ext_id);
      if (p < 0) continue; // the geocoder joins them to the parcel layer
      const l = this.locations.get(r.street_key);
      const e: LocEntry = { lo: r.number_lo, hi: r.number_hi, suffix: r.number_suffix, ext: r.parcel_ext_id, location: r.location, source: r.source, p };
      if (l) l.push(e);
      else this.locations.set(r.street_key, [e]);
    }
    this.counts.locations = rows.length;
  }

  private async loadSegments(db: Queryable): Promise<void> {
    const rows = await chunkOf<SegmentRow & { street_key: string }>(
      db,
      `SELECT street_key, segment_id, street_display, l_from, l_to, r_from, r_to, zip_left, zip_right, geom FROM street_segments WHERE place_id = $1`,
      [this.placeId],
      'street_key',
    );
    for (const r of rows) {
      const { street_key, ...seg } = r;
      const l = this.segs.get(street_key);
      if (l) l.push(seg);
      else this.segs.set(street_key, [seg]);
    }
    for (const l of this.segs.values()) l.sort((a, b) => cmp(a.segment_id, b.segment_id));
    this.counts.segments = rows.length;
  }

  private lowerBound(start: number, end: number, n: number): number {
    let lo = start;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.aNum[mid]! < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  addressRows(key: string, number: number): AddressRow[] {
    const s = this.streets.get(key);
    if (!s) return [];
    const out: AddressRow[] = [];
    for (let i = this.lowerBound(s.start, s.end, number); i < s.end && this.aNum[i] === number; i++) {
      const p = this.aParcel[i]!;
      const display = this.strings[this.aDisplay[i]!]!;
      out.push({
        row_no: this.aRow[i]!,
        number,
        number_suffix: this.strings[this.aSuffix[i]!]!,
        unit: this.strings[this.aUnit[i]!]!,
        full_address: this.aFull[i] ?? `${number} ${display}`,
        street_display: display,
        postcode: this.strings[this.aPostcode[i]!]!,
        parcel_ext_id: p >= 0 ? this.lots.idOf(p) : (this.aExtMissing.get(i) ?? null),
        lon: this.aLon === null || Number.isNaN(this.aLon[i]!) ? null : this.aLon[i]!,
        lat: this.aLat === null || Number.isNaN(this.aLat[i]!) ? null : this.aLat[i]!,
        inside_lon: p >= 0 ? this.lots.lonAt(p) : null,
        inside_lat: p >= 0 ? this.lots.latAt(p) : null,
        has_parcel: p >= 0,
        in_right_of_way: this.aRightOfWay.has(i),
      });
    }
    return out;
  }

  locationRows(key: string, number: number): LocationRow[] {
    const l = this.locations.get(key);
    if (!l) return [];
    return l
      .filter((e) => e.lo <= number && e.lo >= number - 40 && e.hi >= number)
      .sort((a, b) => cmp(a.ext, b.ext) || cmp(a.location, b.location))
      .map((e) => ({
        parcel_ext_id: e.ext,
        location: e.location,
        number_lo: e.lo,
        number_hi: e.hi,
        number_suffix: e.suffix,
        source: e.source,
        inside_lon: this.lots.lonAt(e.p),
        inside_lat: this.lots.latAt(e.p),
      }));
  }

  neighbourRows(key: string, number: number, gap: number): NeighbourRow[] {
    const s = this.streets.get(key);
    if (!s) return [];
    const parity = number % 2;
    const row = (i: number): NeighbourRow => {
      const p = this.aParcel[i]!;
      return {
        number: this.aNum[i]!,
        parcel_ext_id: this.lots.idOf(p),
        inside_lon: this.lots.lonAt(p),
        inside_lat: this.lots.latAt(p),
        street_display: this.strings[this.aDisplay[i]!]!,
      };
    };
    const out: NeighbourRow[] = [];
    const at = this.lowerBound(s.start, s.end, number);
    // below: the highest number < n (>= n - gap, same parity) with a lot; its lowest row_no
    let best = -1;
    for (let i = at - 1; i >= s.start; i--) {
      const k = this.aNum[i]!;
      if (k < number - gap) break;
      if (best >= 0 && k !== this.aNum[best]) break;
      if (k % 2 === parity && this.aParcel[i]! >= 0) best = i;
    }
    if (best >= 0) out.push(row(best));
    // above: the lowest number > n (<= n + gap, same parity) with a lot; its lowest row_no
    let i = at;
    while (i < s.end && this.aNum[i] === number) i++;
    for (; i < s.end; i++) {
      const k = this.aNum[i]!;
      if (k > number + gap) break;
      if (k % 2 === parity && this.aParcel[i]! >= 0) {
        out.push(row(i));
        break;
      }
    }
    return out;
  }

  segments(key: string): SegmentRow[] {
    return (this.segs.get(key) ?? []).map((s) => ({ ...s }));
  }

  hasStreetLayer(): boolean {
    return this.segs.size > 0;
  }

  parcelsInBox(box: BBox): MaybePromise<{ parcel_ext_id: string; geom: unknown }[]> {
    return this.lots.parcelsInBox(box);
  }

  lot(parcelExtId: string): LotRow | null {
    return this.lots.lot(parcelExtId);
  }

  lotHasZone(parcelExtId: string): boolean | null {
    return this.lots.lotHasZone(parcelExtId);
  }

  private postcodeSet: ReadonlySet<string> = new Set();
  postcodes(): ReadonlySet<string> {
    return this.postcodeSet;
  }

  /** Approximate heap bytes held: the lot store's, the address columns, the strings and the street tables. */
  private estimateBytes(): number {
    let n = this.lots.bytes();
    for (const a of [this.aRow, this.aNum, this.aParcel, this.aSuffix, this.aUnit, this.aPostcode, this.aDisplay, this.aLon, this.aLat])
      if (a) n += a.byteLength + 64;
    n += stringsBytes(this.aFull) + stringsBytes(this.strings);
    n += tableBytes(this.aExtMissing.size) + tableBytes(this.aRightOfWay.size);
    for (const v of this.aExtMissing.values()) n += stringBytes(v);
    n += tableBytes(this.streets.size);
    for (const k of this.streets.keys()) n += stringBytes(k) + 40;
    n += tableBytes(this.locations.size);
    for (const [k, l] of this.locations) {
      n += stringBytes(k) + 32 + l.length * 8;
      for (const e of l) n += 80 + stringBytes(e.suffix) + stringBytes(e.ext) + stringBytes(e.location) + stringBytes(e.source);
    }
    n += tableBytes(this.segs.size);
    for (const [k, l] of this.segs) {
      n += stringBytes(k) + 32 + l.length * 8;
      for (const seg of l) n += valueBytes(seg);
    }
    for (const p of this.postcodeSet) n += stringBytes(p);
    return n + tableBytes(this.postcodeSet.size) + 1024;
  }
}

// ---- which source a read uses: the bounded hot index ---------------------------------------------
//
// One per context (ctx.caches, src/caches.ts): the loaded indexes of every place share one byte budget
// (config.hotIndexBudgetMb, SITELINE_HOT_INDEX_BUDGET_MB): each index's size is estimated when it is built
// (PlaceIndex.bytes), the indexes are kept least recently used first (lru-cache, sized by those bytes), and
// a load that takes the total over the budget evicts from the least recently used end. A place that is
// cold (never loaded, or evicted) or loading is read through SQL, the truth, while its load runs in the
// background (one load per place and version however many requests ask; at most MAX_CONCURRENT_LOADS at a
// time); an index larger than the whole budget is not kept (that place is read through SQL until the
// budget changes). placeChanged(placeId), the context's door for a re-import, drops the place at once.

interface Entry {
  placeId: string;
  version: string;
  generation: number;
  index: PlaceIndex | null;
  loading: Promise<PlaceIndex | null> | null;
  failedAt?: number;
  /** The index's estimated bytes: its size in the LRU while it is held. */
  bytes: number;
  /** Larger than the whole budget when it loaded: read through SQL. */
  oversize?: boolean;
}

const RETRY_AFTER_FAILURE_MS = 60_000;
/** Loads running at once (each reads the place's tables in chunks and builds its columns). */
const MAX_CONCURRENT_LOADS = 2;

/** The default byte budget (SITELINE_HOT_INDEX_BUDGET_MB's default; docs/scaling.md sizes it). */
export const DEFAULT_HOT_INDEX_BUDGET_MB = 640;

export interface HotIndexStats {
  /** Reads of a place whose index was loaded (answered from memory). */
  hits: number;
  /** Reads of a cold or loading place (answered through SQL). */
  misses: number;
  /** Reads of a place this instance does not own (answered through SQL, never loaded: src/places/place-ownership.ts). */
  unowned: number;
  /** Indexes loaded, evicted (least recently used, over the budget), and not kept for being larger than the budget. */
  loads: number;
  evictions: number;
  oversize: number;
  failures: number;
  /** Places held now and their estimated bytes; the budget (bytes). */
  places: number;
  bytes: number;
  budgetBytes: number;
}

export interface PlaceVersion extends OwnedPlace {
  geoDivisionId: string;
  /** The import version the caller resolved (catalogue record); null: not imported. */
  importedAt: string | null;
  /** The catalogue's layers (their loaded feature counts size the load). */
  layers?: readonly { layer: string; features: number | null }[];
}

const budgetBytesOf = (mb: number): number => {
  if (!Number.isFinite(mb) || mb <= 0) throw new Error(`hot index budget must be a positive number of MB, not ${mb}`);
  return Math.max(1, Math.round(mb * 1024 * 1024));
};

/** One context's hot indexes: every place's entry, the loaded ones in an LRU bounded by their bytes. */
export class HotIndex implements CacheDoors {
  #enabled: boolean;
  #budgetBytes: number;
  /** Each place's entry: loading, loaded (then also in #lru), failed, or larger than the budget. */
  readonly #entries = new Map<string, Entry>();
  /** Bumped per place by placeChanged: a load begun before it is discarded when it ends. */
  readonly #generations = new Map<string, number>();
  /** The loaded indexes, least recently used first, bounded by the budget. */
  #lru: LRUCache<string, Entry>;
  readonly #oversized = new Set<Entry>();
  readonly #counters = { hits: 0, misses: 0, unowned: 0, loads: 0, evictions: 0, oversize: 0, failures: 0 };
  /** Whether this instance owns a place (config.placeOwnership): a place it does not own is never loaded. */
  readonly #owns: (place: OwnedPlace) => boolean;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(config: Pick<Config, 'hotIndex' | 'hotIndexBudgetMb'> & Partial<Pick<Config, 'placeOwnership'>>) {
    this.#enabled = config.hotIndex;
    this.#owns = placeOwnership(config.placeOwnership);
    this.#budgetBytes = budgetBytesOf(config.hotIndexBudgetMb);
    this.#lru = this.#newLru();
  }

  #newLru(): LRUCache<string, Entry> {
    return new LRUCache<string, Entry>({
      maxSize: this.#budgetBytes,
      sizeCalculation: (e) => e.bytes,
      // Out of the LRU: evicted over the budget (counted), or dropped (a re-import, another version).
      dispose: (e, _placeId, reason) => {
        if (reason === 'evict') this.#counters.evictions++;
        this.#forget(e);
      },
    });
  }

  /** The entry no longer holds its index, and is no longer its place's entry. */
  #forget(e: Entry): void {
    e.index = null;
    if (this.#entries.get(e.placeId) === e) this.#entries.delete(e.placeId);
  }

  /** Removes an entry: out of the LRU (its bytes no longer held) and out of the place's entries. */
  #drop(e: Entry): void {
    this.#oversized.delete(e);
    if (this.#lru.peek(e.placeId) === e) this.#lru.delete(e.placeId);
    else this.#forget(e);
  }

  /** The counters since the context was made (or resetStats). */
  stats(): HotIndexStats {
    return { ...this.#counters, places: this.#lru.size, bytes: this.#lru.calculatedSize, budgetBytes: this.#budgetBytes };
  }

  /** Zeroes the counters (not what is held): the bench measures one phase at a time. */
  resetStats(): void {
    const c = this.#counters;
    for (const k of Object.keys(c) as (keyof typeof c)[]) c[k] = 0;
  }

  /** Sets the byte budget (MB), evicting at once from the least recently used end when over it. */
  setBudget(mb: number): void {
    this.#budgetBytes = budgetBytesOf(mb);
    for (const e of [...this.#oversized]) this.#drop(e); // their next read loads again, under the new budget
    while (this.#lru.calculatedSize > this.#budgetBytes) this.#lru.pop();
    // What is left fits: carried over, least recently used first, into an LRU of the new size.
    const old = this.#lru;
    const held = [...old.rkeys()].map((placeId) => old.peek(placeId)!);
    this.#lru = this.#newLru();
    for (const e of held) this.#lru.set(e.placeId, e);
  }

  /** Whether this instance owns the place (keeps its index); every place when no ownership is configured. */
  owns(place: OwnedPlace): boolean {
    return this.#owns(place);
  }

  /** Turns the index on or off for this context (the bench and tests compare both). */
  setEnabled(on: boolean): void {
    this.#enabled = on;
  }

  /** The context's door for a re-import: the place's index is dropped, and a load under way is discarded when it ends. */
  placeChanged(placeId: string): void {
    this.#generations.set(placeId, (this.#generations.get(placeId) ?? 0) + 1);
    const e = this.#entries.get(placeId);
    if (e) this.#drop(e);
  }

  /** See placeSource. */
  source(db: Queryable, place: PlaceVersion): GeoSource {
    const placeId = place.geoDivisionId;
    if (!this.#enabled || !place.importedAt) return sqlSource(db, placeId);
    if (!this.#owns(place)) {
      this.#counters.unowned++;
      return sqlSource(db, placeId);
    }
    const e = this.#entryFor(db, place);
    if (e?.index) {
      this.#counters.hits++;
      this.#lru.get(placeId); // the most recently used now
      return e.index;
    }
    this.#counters.misses++;
    return sqlSource(db, placeId);
  }

  /** See warmPlaceIndex. */
  async warm(db: Queryable, place: PlaceVersion): Promise<PlaceIndex | null> {
    if (!place.importedAt || !this.#owns(place)) return null;
    const e = this.#entryFor(db, place);
    if (!e) return null;
    const ix = e.index ?? (await e.loading) ?? null;
    if (ix) this.#lru.get(place.geoDivisionId);
    return ix;
  }

  async #limited<T>(f: () => Promise<T>): Promise<T> {
    if (this.#running >= MAX_CONCURRENT_LOADS) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    try {
      return await f();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  /** The place's entry for this version, its load started if need be; null for a record older than the entry held (read through SQL, the newer index kept). */
  #entryFor(db: Queryable, place: PlaceVersion): Entry | null {
    const placeId = place.geoDivisionId;
    const version = place.importedAt!;
    const generation = this.#generations.get(placeId) ?? 0;
    const cur = this.#entries.get(placeId);
    if (cur && cur.version === version && cur.generation === generation) {
      if (cur.index || cur.loading || cur.oversize || (cur.failedAt !== undefined && Date.now() - cur.failedAt < RETRY_AFTER_FAILURE_MS)) return cur;
    }
    // a caller holding a catalogue record from before the import this entry was loaded for (versions are
    // ISO timestamps of the database's clock): its reads go to SQL, and the newer index stays
    if (cur && cur.generation === generation && version < cur.version) return null;
    if (cur) this.#drop(cur); // another version (or failed long ago): its bytes are freed now
    const e: Entry = { placeId, version, generation, index: null, loading: null, bytes: 0 };
    const current = () => this.#entries.get(placeId) === e;
    this.#entries.set(placeId, e); // before the load starts: it checks that it is still the place's entry
    e.loading = this.#limited(() => (current() ? PlaceIndex.load(db, placeId, version) : Promise.resolve(null))).then(
      (ix) => {
        e.loading = null;
        if (ix && (this.#generations.get(placeId) ?? 0) === generation && current()) {
          this.#counters.loads++;
          e.bytes = ix.bytes;
          if (e.bytes > this.#budgetBytes) {
            e.oversize = true;
            this.#oversized.add(e);
            this.#counters.oversize++;
            return null;
          }
          e.index = ix;
          this.#lru.set(placeId, e); // evicts from the least recently used end until the budget holds it
        } else if (current()) this.#entries.delete(placeId); // another version: the next read tries again
        return e.index;
      },
      () => {
        e.loading = null;
        e.failedAt = Date.now();
        this.#counters.failures++;
        return null;
      },
    );
    return e;
  }
}

// By version: an index is loaded for one import version, from whichever copy of the database (primary or a
// replica) asked first, and serves any caller holding that version (a lagging replica's older one reads SQL).
const HOT_INDEX = cacheKind('hot index', (config) => new HotIndex(config), { byVersion: true });

/** The context's hot indexes (stats, budget, on/off for the bench and tests). */
export function hotIndexOf(ctx: Pick<AppContext, 'caches'>): HotIndex {
  return ctx.caches.of(HOT_INDEX);
}

/**
 * The source for reads about a place: its hot index when loaded for this import version (a hit, which
 * makes it the most recently used); otherwise SQL, after starting its load (a miss).
 */
export async function placeSource(ctx: Pick<AppContext, 'db' | 'caches'>, place: PlaceVersion): Promise<GeoSource> {
  return hotIndexOf(ctx).source(ctx.db, place);
}

/** Loads (or waits for) a place's hot index; null when it cannot be loaded for this version or is larger than the budget. */
export function warmPlaceIndex(ctx: Pick<AppContext, 'db' | 'caches'>, place: PlaceVersion): Promise<PlaceIndex | null> {
  return hotIndexOf(ctx).warm(ctx.db, place);
}
