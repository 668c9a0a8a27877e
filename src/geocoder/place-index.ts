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
// catalogue cache refreshes) or placeChanged (src/places/place-changes.ts, called by the importer) makes the next read reload it.
// While a large place's index loads in the background, reads go to SQL.
import type { Queryable } from '../db/database.ts';
import type { BBox } from '../core/geo/primitives.ts';
import { deepFreeze } from '../core/deep-freeze.ts';
import { onPlaceChanged } from '../places/place-changes.ts';


type TypedColumn = Float64Array | Int32Array | Uint8Array | Int8Array;

/** A column copied into a new one of the same type and `length` elements (the loaders grow in chunks). */
function grown<T extends TypedColumn>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a);
  return b;
}

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

/** A lot as the snapshot reads it (no geometry). */
export interface LotRow {
  parcel_ext_id: string;
  inside_lon: number;
  inside_lat: number;
  area_m2: number;
  facts: { frontByStreet?: Record<string, { frontageM: number; depthM: number }>; cornerLot?: boolean | null; streets?: string[] };
  attrs: Record<string, unknown>;
  source: string;
  vintage: string;
  zones: { layer: string; code: string; name: string | null; share: number; attrs?: Record<string, unknown> }[];
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
  /** Lots whose bbox meets the box, by lot id, with their geometry. */
  parcelsInBox(box: BBox): MaybePromise<{ parcel_ext_id: string; geom: unknown }[]>;
  /** One lot as the snapshot reads it; null when the parcel layer has no such lot. */
  lot(parcelExtId: string): MaybePromise<LotRow | null>;
  /** Whether the lot has a base district; null when the parcel layer has no such lot. */
  lotHasZone(parcelExtId: string): MaybePromise<boolean | null>;
  /** The postcodes the place's own data holds (place_postcodes), as stored; empty when it holds none. */
  postcodes(): MaybePromise<ReadonlySet<string>>;
}

const boxLiteral = (b: BBox) => `(${b[0]},${b[1]}),(${b[2]},${b[3]})`;

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
    parcelsInBox: (box) =>
      db.query<{ parcel_ext_id: string; geom: unknown }>(`SELECT parcel_ext_id, geom FROM parcels WHERE place_id = $1 AND bbox && $2::box ORDER BY parcel_ext_id`, [
        placeId,
        boxLiteral(box),
      ]),
    lot: async (id) =>
      (
        await db.query<LotRow>(
          `SELECT p.parcel_ext_id, p.inside_lon, p.inside_lat, p.area_m2, p.facts, p.attrs, p.source, p.vintage, p.zones
             FROM parcels p
            WHERE p.place_id = $1 AND p.parcel_ext_id = $2`,
          [placeId, id],
        )
      )[0] ?? null,
    lotHasZone: async (id) =>
      (await db.query<{ has_zone: boolean }>(`SELECT (p.primary_zone IS NOT NULL) AS has_zone FROM parcels p WHERE p.place_id = $1 AND p.parcel_ext_id = $2`, [placeId, id]))[0]
        ?.has_zone ?? null,
    postcodes: async () => new Set((await db.query<{ postcode: string }>('SELECT postcode FROM place_postcodes WHERE place_id = $1', [placeId])).map((r) => r.postcode)),
  };
}

// ---- the hot index ------------------------------------------------------------------------------

/** Places with at most this many parcels keep their lot geometry in memory (bbox lookups without SQL). */
export const GEOMETRY_IN_MEMORY_MAX_PARCELS = 250_000;
/** Places with at most this many parcels are loaded on the first read (which waits); larger ones in the background. */
export const INLINE_LOAD_MAX_PARCELS = 100_000;
const CHUNK = 10_000;
/** Heap pages of the parcels table per chunk (a lot row with its geometry is 0.5-2 KB). */
const PAGES_PER_CHUNK = 1_000;
/** PostgreSQL's geometric comparisons are fuzzy by this much (EPSILON in geo_decls.h); && is too. */
const PG_EPSILON = 1e-6;
const GRID_DEG = 0.002;

/** Code-unit order (the C collation): the index's one order for ids and keys. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A typed array that grows as values are pushed. */
class Grow<T extends Int32Array | Float64Array> {
  private a: T;
  length = 0;
  constructor(
    private readonly Kind: new (n: number) => T,
    capacity: number,
  ) {
    this.a = new Kind(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.length === this.a.length) {
      const b = new this.Kind(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length++] = v;
  }
  at(i: number): number {
    return this.a[i]!;
  }
  view(): T {
    return this.a.subarray(0, this.length) as T;
  }
}

class Strings {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.ids.set(s, i);
    }
    return i;
  }
  done(): string[] {
    this.ids.clear();
    return this.list;
  }
}

interface LocEntry {
  lo: number;
  hi: number;
  suffix: string;
  ext: string;
  location: string;
  source: string;
  p: number;
}

interface ParcelChunkRow {
  parcel_ext_id: string;
  inside_lon: number;
  inside_lat: number;
  area_m2: number;
  facts: string;
  attrs: string;
  source: string;
  vintage: string;
  zones: string;
  has_zone: boolean;
  geom?: string;
  bbox?: string;
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
  // parcels (sorted by id)
  // lot ids, in code-unit order: one string, lot i's id at [idStart[i], idStart[i + 1]) (a million ids
  // as strings of their own cost about 40 MB more)
  private idText = '';
  private idStart: Int32Array = new Int32Array(1);
  private inLon!: Float64Array;
  private inLat!: Float64Array;
  private area!: Float64Array;
  private zonesOf!: Int32Array; // into zoneTexts
  private zoneTexts: string[] = [];
  /**
   * zoneTexts parsed on first use, frozen: many lots share one text, and a snapshot only reads it.
   * Bounded (a real city's lots mostly have texts of their own): dropped whole past ZONES_PARSED_MAX.
   */
  private zoneParsed: (LotRow['zones'] | undefined)[] = [];
  private zoneParsedCount = 0;
  /**
   * zoneTexts that two or more lots share: only those are kept parsed. A text of one lot (most of a
   * real city's: the shares differ) is parsed for the read and left to the young generation; kept,
   * every distinct lot asked about added an entry that outlived its request.
   */
  private zoneShared = new Set<number>();
  private hasZone!: Uint8Array;
  private src!: Int32Array; // into strings (source), vintage likewise
  private vintage!: Int32Array;
  private corner!: Int8Array; // -1 absent/null, 0 false, 1 true
  private frontStart!: Int32Array; // n + 1
  private frontKey!: Int32Array;
  private frontage!: Float64Array;
  private depth!: Float64Array;
  private frontNull: Set<number> = new Set(); // front entries whose frontage/depth were not numbers (kept as in the row)
  // facts that are not of the plain shape, kept as written and interned (lots of one block often share
  // theirs: a million synthetic lots have a handful); -1: the plain shape, in the front columns
  private factsOf!: Int32Array;
  private factsTexts: string[] = [];
  private attrsText = new Map<number, string>();
  private geomText: string[] | null = null;
  private bbox: Float64Array | null = null;
  private grid: Map<number, number[]> | null = null;
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

  private constructor(
    readonly placeId: string,
    readonly version: string,
    private readonly fallback: GeoSource,
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
    const ix = new PlaceIndex(placeId, version, sqlSource(db, placeId));
    const timed = async (k: string, f: () => Promise<void>) => {
      const t0 = performance.now();
      await f();
      ix.loadMs[k] = Math.round(performance.now() - t0);
    };
    await timed('parcels', () => ix.loadParcels(db));
    await timed('addresses', () => ix.loadAddresses(db));
    await timed('locations', () => ix.loadLocations(db));
    await timed('segments', () => ix.loadSegments(db));
    ix.postcodeSet = await sqlSource(db, placeId).postcodes();
    if ((await versionNow()) !== version) return null;
    return ix;
  }

  private async loadParcels(db: Queryable): Promise<void> {
    const n = Number((await db.query<{ n: number | string }>('SELECT count(*) AS n FROM parcels WHERE place_id = $1', [this.placeId]))[0]?.n ?? 0);
    const withGeom = n <= GEOMETRY_IN_MEMORY_MAX_PARCELS;
    const cap = n + CHUNK; // rows may arrive between count and the last chunk; grown below if so
    let inLon = new Float64Array(cap);
    let inLat = new Float64Array(cap);
    let area = new Float64Array(cap);
    let zonesOf = new Int32Array(cap);
    let hasZone = new Uint8Array(cap);
    let src = new Int32Array(cap);
    let vintage = new Int32Array(cap);
    let corner = new Int8Array(cap);
    let factsOf = new Int32Array(cap);
    const factsIds = new Map<string, number>();
    let frontStart = new Int32Array(cap + 1);
    let fKey = new Grow(Int32Array, cap);
    let fFront = new Grow(Float64Array, cap);
    let fDepth = new Grow(Float64Array, cap);
    let bbox = withGeom ? new Float64Array(cap * 4) : null;
    let geom: string[] | null = withGeom ? [] : null;
    const zoneIds = new Map<string, number>();
    const strings = new Strings();
    let ids: string[] = [];
    // Chunks by physical page range (a TID range scan reads just those pages): keyset pages over the
    // id were planned as a scan of every remaining row and a sort (quadratic at a million lots).
    const pages = Number((await db.query<{ n: number | string }>(`SELECT (pg_relation_size('parcels') / current_setting('block_size')::int) AS n`))[0]?.n ?? 0);
    for (let page = 0; page <= pages; page += PAGES_PER_CHUNK) {
      const rows = await chunkOf<ParcelChunkRow>(
        db,
        `SELECT parcel_ext_id, inside_lon, inside_lat, area_m2, facts::text AS facts, attrs::text AS attrs, source, vintage, zones::text AS zones,
                (primary_zone IS NOT NULL) AS has_zone${withGeom ? ', geom::text AS geom, bbox::text AS bbox' : ''}
           FROM parcels WHERE ctid >= $2::tid AND ctid < $3::tid AND place_id = $1`,
        [this.placeId, `(${page},0)`, `(${page + PAGES_PER_CHUNK},0)`],
        'parcel_ext_id',
      );
      for (const r of rows) {
        const i = ids.length;
        if (i >= inLon.length) {
          const grow = <T extends TypedColumn>(a: T, k = 1): T => grown(a, (i + CHUNK) * k);
          inLon = grow(inLon);
          inLat = grow(inLat);
          area = grow(area);
          zonesOf = grow(zonesOf);
          hasZone = grow(hasZone);
          src = grow(src);
          vintage = grow(vintage);
          corner = grow(corner);
          factsOf = grow(factsOf);
          const fs = new Int32Array(i + CHUNK + 1);
          fs.set(frontStart);
          frontStart = fs;
          if (bbox) bbox = grow(bbox, 4);
        }
        ids.push(r.parcel_ext_id);
        inLon[i] = r.inside_lon;
        inLat[i] = r.inside_lat;
        area[i] = r.area_m2;
        let z = zoneIds.get(r.zones);
        if (z === undefined) {
          z = this.zoneTexts.length;
          this.zoneTexts.push(r.zones);
          zoneIds.set(r.zones, z);
        } else this.zoneShared.add(z);
        zonesOf[i] = z;
        hasZone[i] = r.has_zone ? 1 : 0;
        src[i] = strings.id(r.source);
        vintage[i] = strings.id(r.vintage);
        frontStart[i] = fKey.length;
        corner[i] = -1;
        this.readFacts(i, r.facts, strings, fKey, fFront, fDepth, corner, factsOf, factsIds);
        frontStart[i + 1] = fKey.length;
        if (r.attrs !== '{}') this.attrsText.set(i, r.attrs);
        if (bbox && geom) {
          geom.push(r.geom!);
          const m = r.bbox!.match(/-?[\d.]+(?:e[-+]?\d+)?/gi)!.map(Number);
          bbox[i * 4] = Math.min(m[0]!, m[2]!);
          bbox[i * 4 + 1] = Math.min(m[1]!, m[3]!);
          bbox[i * 4 + 2] = Math.max(m[0]!, m[2]!);
          bbox[i * 4 + 3] = Math.max(m[1]!, m[3]!);
        }
      }
    }
    const count = ids.length;
    // The database's order may be a locale's: the index keeps code-unit order for its binary search.
    let sorted = true;
    for (let i = 1; i < count && sorted; i++) if (cmp(ids[i - 1]!, ids[i]!) >= 0) sorted = false;
    if (!sorted) {
      const order = Int32Array.from({ length: count }, (_, i) => i).sort((a, b) => cmp(ids[a]!, ids[b]!));
      const perm = <T extends Float64Array | Int32Array | Uint8Array | Int8Array>(a: T, k = 1): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length);
        for (let j = 0; j < count; j++) for (let q = 0; q < k; q++) b[j * k + q] = a[order[j]! * k + q]!;
        return b;
      };
      const sortedIds = Array.from(order, (j) => ids[j]!);
      inLon = perm(inLon);
      inLat = perm(inLat);
      area = perm(area);
      zonesOf = perm(zonesOf);
      hasZone = perm(hasZone);
      src = perm(src);
      vintage = perm(vintage);
      corner = perm(corner);
      factsOf = perm(factsOf);
      if (bbox) bbox = perm(bbox, 4);
      const fs = new Int32Array(count + 1);
      const k2 = new Grow(Int32Array, fKey.length);
      const f2 = new Grow(Float64Array, fKey.length);
      const d2 = new Grow(Float64Array, fKey.length);
      for (let j = 0; j < count; j++) {
        fs[j] = k2.length;
        for (let q = frontStart[order[j]!]!; q < frontStart[order[j]! + 1]!; q++) k2.push(fKey.at(q)), f2.push(fFront.at(q)), d2.push(fDepth.at(q));
      }
      fs[count] = k2.length;
      frontStart = fs;
      fKey = k2;
      fFront = f2;
      fDepth = d2;
      const inv = new Int32Array(count);
      for (let j = 0; j < count; j++) inv[order[j]!] = j;
      const remap = (m: Map<number, string>) => new Map([...m].map(([i, v]) => [inv[i]!, v]));
      this.attrsText = remap(this.attrsText);
      if (geom) {
        const g = geom;
        geom = Array.from(order, (j) => g[j]!);
      }
      ids = sortedIds;
    }
    const idStart = new Int32Array(count + 1);
    for (let j = 0, at = 0; j < count; j++) idStart[j + 1] = at += ids[j]!.length;
    this.idText = ids.join('');
    this.idStart = idStart;
    ids = [];
    this.inLon = inLon.subarray(0, count);
    this.inLat = inLat.subarray(0, count);
    this.area = area.subarray(0, count);
    this.zonesOf = zonesOf.subarray(0, count);
    this.hasZone = hasZone.subarray(0, count);
    this.src = src.subarray(0, count);
    this.vintage = vintage.subarray(0, count);
    this.corner = corner.subarray(0, count);
    this.factsOf = factsOf.subarray(0, count);
    factsIds.clear();
    this.frontStart = frontStart.subarray(0, count + 1);
    this.frontKey = fKey.view();
    this.frontage = fFront.view();
    this.depth = fDepth.view();
    this.strings = strings.done();
    if (bbox && geom) {
      this.bbox = bbox.subarray(0, count * 4);
      this.geomText = geom;
      const grid = new Map<number, number[]>();
      for (let i = 0; i < count; i++) {
        for (const c of cellsOf(this.bbox[i * 4]!, this.bbox[i * 4 + 1]!, this.bbox[i * 4 + 2]!, this.bbox[i * 4 + 3]!)) {
          const l = grid.get(c);
          if (l) l.push(i);
          else grid.set(c, [i]);
        }
      }
      this.grid = grid;
    }
    this.counts.parcels = count;
    this.counts.geometry = withGeom;
  }

  /** Facts of the usual shape go to columns; anything else is kept as written. */
  private readFacts(
    i: number,
    text: string,
    strings: Strings,
    fKey: Grow<Int32Array>,
    fFront: Grow<Float64Array>,
    fDepth: Grow<Float64Array>,
    corner: Int8Array,
    factsOf: Int32Array,
    factsIds: Map<string, number>,
  ): void {
    const seen = factsIds.get(text);
    if (seen !== undefined) {
      factsOf[i] = seen;
      return;
    }
    const f = JSON.parse(text) as Record<string, unknown>;
    const plain =
      f !== null &&
      typeof f === 'object' &&
      !Array.isArray(f) &&
      Object.keys(f).every((k) => k === 'frontByStreet' || k === 'cornerLot' || k === 'streets') &&
      (f['cornerLot'] === undefined || f['cornerLot'] === null || typeof f['cornerLot'] === 'boolean') &&
      (f['frontByStreet'] === undefined ||
        (typeof f['frontByStreet'] === 'object' &&
          f['frontByStreet'] !== null &&
          Object.values(f['frontByStreet'] as Record<string, unknown>).every(
            (v) => v !== null && typeof v === 'object' && typeof (v as Record<string, unknown>)['frontageM'] === 'number' && typeof (v as Record<string, unknown>)['depthM'] === 'number',
          )));
    if (!plain) {
      factsOf[i] = this.factsTexts.length;
      factsIds.set(text, this.factsTexts.length);
      this.factsTexts.push(text);
      return;
    }
    factsOf[i] = -1;
    if (typeof f['cornerLot'] === 'boolean') corner[i] = f['cornerLot'] ? 1 : 0;
    const fb = f['frontByStreet'] as Record<string, { frontageM: number; depthM: number }> | undefined;
    if (fb) {
      for (const [k, v] of Object.entries(fb)) {
        fKey.push(strings.id(k));
        fFront.push(v.frontageM);
        fDepth.push(v.depthM);
      }
    }
  }

  private async loadAddresses(db: Queryable): Promise<void> {
    // Read in chunks into columns (no row objects kept), then ordered by street key, number, row_no.
    const strings = new Strings();
    for (const s of this.strings) strings.id(s);
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
    const span = (await db.query<{ lo: number | null; hi: number | null }>('SELECT min(row_no) AS lo, max(row_no) AS hi FROM addresses WHERE place_id = $1', [this.placeId]))[0];
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
        const p = r.parcel_ext_id === null ? -1 : this.parcelIndex(r.parcel_ext_id);
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
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((x, y) => keyRank[key[x]!]! - keyRank[key[y]!]! || num[x]! - num[y]! || rowNo[x]! - rowNo[y]!);
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
    const rows = await chunkOf<{ street_key: string; number_lo: number; number_hi: number; number_suffix: string; parcel_ext_id: string; location: string; source: string }>(
      db,
      `SELECT street_key, number_lo, number_hi, number_suffix, parcel_ext_id, location, source FROM lot_locations WHERE place_id = $1`,
      [this.placeId],
      'street_key',
    );
    for (const r of rows) {
      const p = this.parcelIndex(r.parcel_ext_id);
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

  /** Position of a lot id in the parcel columns; -1 when the parcel layer has no such lot. */
  private parcelIndex(id: string): number {
    let lo = 0;
    let hi = this.idStart.length - 2;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.idCmp(mid, id);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Lot i's id against id, in code-unit order (as cmp). */
  private idCmp(i: number, id: string): number {
    const t = this.idText;
    const a = this.idStart[i]!;
    const la = this.idStart[i + 1]! - a;
    const m = Math.min(la, id.length);
    for (let k = 0; k < m; k++) {
      const d = t.charCodeAt(a + k) - id.charCodeAt(k);
      if (d !== 0) return d;
    }
    return la - id.length;
  }

  private idOf(i: number): string {
    return this.idText.slice(this.idStart[i]!, this.idStart[i + 1]!);
  }

  /** First address position with number >= n within [start, end). */
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
        parcel_ext_id: p >= 0 ? this.idOf(p) : (this.aExtMissing.get(i) ?? null),
        lon: this.aLon === null || Number.isNaN(this.aLon[i]!) ? null : this.aLon[i]!,
        lat: this.aLat === null || Number.isNaN(this.aLat[i]!) ? null : this.aLat[i]!,
        inside_lon: p >= 0 ? this.inLon[p]! : null,
        inside_lat: p >= 0 ? this.inLat[p]! : null,
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
        inside_lon: this.inLon[e.p]!,
        inside_lat: this.inLat[e.p]!,
      }));
  }

  neighbourRows(key: string, number: number, gap: number): NeighbourRow[] {
    const s = this.streets.get(key);
    if (!s) return [];
    const parity = number % 2;
    const row = (i: number): NeighbourRow => {
      const p = this.aParcel[i]!;
      return { number: this.aNum[i]!, parcel_ext_id: this.idOf(p), inside_lon: this.inLon[p]!, inside_lat: this.inLat[p]!, street_display: this.strings[this.aDisplay[i]!]! };
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

  parcelsInBox(box: BBox): MaybePromise<{ parcel_ext_id: string; geom: unknown }[]> {
    const bb = this.bbox;
    const grid = this.grid;
    const geom = this.geomText;
    if (!bb || !grid || !geom) return this.fallback.parcelsInBox(box);
    const hit = new Set<number>();
    for (const c of cellsOf(box[0], box[1], box[2], box[3])) {
      for (const i of grid.get(c) ?? []) {
        if (hit.has(i)) continue;
        if (bb[i * 4]! <= box[2] + PG_EPSILON && box[0] <= bb[i * 4 + 2]! + PG_EPSILON && bb[i * 4 + 1]! <= box[3] + PG_EPSILON && box[1] <= bb[i * 4 + 3]! + PG_EPSILON) hit.add(i);
      }
    }
    return [...hit].sort((a, b) => a - b).map((i) => ({ parcel_ext_id: this.idOf(i), geom: JSON.parse(geom[i]!) as unknown }));
  }

  lot(parcelExtId: string): LotRow | null {
    const i = this.parcelIndex(parcelExtId);
    if (i < 0) return null;
    let facts: LotRow['facts'];
    const raw = this.factsOf[i]!;
    if (raw >= 0) facts = JSON.parse(this.factsTexts[raw]!) as LotRow['facts'];
    else {
      facts = {};
      const a = this.frontStart[i]!;
      const b = this.frontStart[i + 1]!;
      if (b > a) {
        const fb: Record<string, { frontageM: number; depthM: number }> = {};
        for (let k = a; k < b; k++) fb[this.strings[this.frontKey[k]!]!] = { frontageM: this.frontage[k]!, depthM: this.depth[k]! };
        facts.frontByStreet = fb;
      }
      const c = this.corner[i]!;
      if (c >= 0) facts.cornerLot = c === 1;
    }
    const attrs = this.attrsText.get(i);
    return {
      parcel_ext_id: this.idOf(i),
      inside_lon: this.inLon[i]!,
      inside_lat: this.inLat[i]!,
      area_m2: this.area[i]!,
      facts,
      attrs: attrs === undefined ? {} : (JSON.parse(attrs) as Record<string, unknown>),
      source: this.strings[this.src[i]!]!,
      vintage: this.strings[this.vintage[i]!]!,
      zones: this.zonesAt(this.zonesOf[i]!),
    };
  }

  private zonesAt(z: number): LotRow['zones'] {
    if (!this.zoneShared.has(z)) return JSON.parse(this.zoneTexts[z]!) as LotRow['zones'];
    let parsed = this.zoneParsed[z];
    if (!parsed) {
      parsed = deepFreeze(JSON.parse(this.zoneTexts[z]!) as LotRow['zones']);
      if (this.zoneParsedCount >= ZONES_PARSED_MAX) {
        this.zoneParsed = [];
        this.zoneParsedCount = 0;
      }
      this.zoneParsed[z] = parsed;
      this.zoneParsedCount++;
    }
    return parsed;
  }

  lotHasZone(parcelExtId: string): boolean | null {
    const i = this.parcelIndex(parcelExtId);
    return i < 0 ? null : this.hasZone[i] === 1;
  }

  private postcodeSet: ReadonlySet<string> = new Set();
  postcodes(): ReadonlySet<string> {
    return this.postcodeSet;
  }
}

const ZONES_PARSED_MAX = 20_000;

/**
 * One chunk of rows as one json text (json_agg): a driver decodes a result row by row, about ten
 * times slower than JSON.parse of the same rows in one value (measured on PGlite).
 */
async function chunkOf<T>(db: Queryable, sql: string, params: unknown[], orderBy: string): Promise<T[]> {
  const r = await db.query<{ j: string | null }>(`SELECT json_agg(s ORDER BY s.${orderBy})::text AS j FROM (${sql}) s`, params);
  return r[0]?.j ? (JSON.parse(r[0].j) as T[]) : [];
}

function cellsOf(x0: number, y0: number, x1: number, y1: number): number[] {
  const out: number[] = [];
  const cx0 = Math.floor((x0 - PG_EPSILON) / GRID_DEG);
  const cx1 = Math.floor((x1 + PG_EPSILON) / GRID_DEG);
  const cy0 = Math.floor((y0 - PG_EPSILON) / GRID_DEG);
  const cy1 = Math.floor((y1 + PG_EPSILON) / GRID_DEG);
  for (let x = cx0; x <= cx1; x++) for (let y = cy0; y <= cy1; y++) out.push(x * 1_000_003 + y);
  return out;
}

// ---- which source a read uses -------------------------------------------------------------------

interface Entry {
  version: string;
  generation: number;
  index: PlaceIndex | null;
  loading: Promise<PlaceIndex | null> | null;
  failedAt?: number;
}

const entries = new WeakMap<object, Map<string, Entry>>();
const generations = new Map<string, number>();
let enabled = process.env['SITELINE_HOT_INDEX'] !== '0';
const RETRY_AFTER_FAILURE_MS = 60_000;

/** Drops a place's hot index (every database): the importer calls it after it rewrites the place. */
export function forgetPlaceIndex(placeId: string): void {
  generations.set(placeId, (generations.get(placeId) ?? 0) + 1);
}
onPlaceChanged(forgetPlaceIndex);

/** Turns the hot index on or off for this process (the bench compares both; SITELINE_HOT_INDEX=0 starts it off). */
export function setHotIndexEnabled(on: boolean): void {
  enabled = on;
}

export interface PlaceVersion {
  geoDivisionId: string;
  /** The import version the caller resolved (catalogue record); null: not imported. */
  importedAt: string | null;
  /** The catalogue's layers (their loaded feature counts size the load). */
  layers?: readonly { layer: string; features: number | null }[];
}

/**
 * The source for reads about a place: its hot index when loaded for this import version; otherwise
 * SQL, after starting the load (a place of at most INLINE_LOAD_MAX_PARCELS parcels waits for it).
 */
export async function placeSource(db: Queryable, place: PlaceVersion): Promise<GeoSource> {
  const placeId = place.geoDivisionId;
  if (!enabled || !place.importedAt) return sqlSource(db, placeId);
  const e = entryFor(db, place);
  if (e.index) return e.index;
  if (e.loading && parcelsOf(place) <= INLINE_LOAD_MAX_PARCELS) return (await e.loading) ?? sqlSource(db, placeId);
  return sqlSource(db, placeId);
}

/** Loads (or waits for) a place's hot index; null when it cannot be loaded for this version. */
export async function warmPlaceIndex(db: Queryable, place: PlaceVersion): Promise<PlaceIndex | null> {
  if (!place.importedAt) return null;
  const e = entryFor(db, place);
  return e.index ?? (await e.loading) ?? null;
}

function parcelsOf(place: PlaceVersion): number {
  return place.layers?.find((l) => l.layer === 'parcels')?.features ?? Number.POSITIVE_INFINITY;
}

function entryFor(db: Queryable, place: PlaceVersion): Entry {
  let perDb = entries.get(db);
  if (!perDb) entries.set(db, (perDb = new Map()));
  const placeId = place.geoDivisionId;
  const version = place.importedAt!;
  const generation = generations.get(placeId) ?? 0;
  const cur = perDb.get(placeId);
  if (cur && cur.version === version && cur.generation === generation) {
    if (cur.index || cur.loading || (cur.failedAt !== undefined && Date.now() - cur.failedAt < RETRY_AFTER_FAILURE_MS)) return cur;
  }
  const e: Entry = { version, generation, index: null, loading: null };
  e.loading = PlaceIndex.load(db, placeId, version).then(
    (ix) => {
      e.loading = null;
      if (ix && (generations.get(placeId) ?? 0) === generation) e.index = ix;
      else if (perDb.get(placeId) === e) perDb.delete(placeId); // another version: the next read tries again
      return e.index;
    },
    () => {
      e.loading = null;
      e.failedAt = Date.now();
      return null;
    },
  );
  perDb.set(placeId, e);
  return e;
}
