// The lot store: a place's lots (the parcel layer) as the lookup path reads them: one lot by its id
// (the row the snapshot shapes), whether it has a base district, and the lots whose box meets a box
// (with their geometry). Two sources answer every read identically: SQL (sqlLots, one indexed query a
// read) and the hot lot columns (LotStore, loaded with the place's hot index, src/geocoder/place-index.ts,
// which holds the address and street tables and finds a lot's inside point here by the lot's position).
import type { Queryable } from '../db/database.ts';
import type { BBox } from '../core/geo/primitives.ts';
import { deepFreeze } from '../core/deep-freeze.ts';
import { CHUNK, Grow, Strings, chunkOf, cmp, grown, stringBytes, stringsBytes, tableBytes, type TypedColumn } from './columns.ts';
import { placeRelation } from '../db/place-partitions.ts';

type MaybePromise<T> = T | Promise<T>;

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

/** The reads about a place's lots. */
export interface LotReads {
  /** Lots whose bbox meets the box, by lot id, with their geometry. */
  parcelsInBox(box: BBox): MaybePromise<{ parcel_ext_id: string; geom: unknown }[]>;
  /** One lot as the snapshot reads it; null when the parcel layer has no such lot. */
  lot(parcelExtId: string): MaybePromise<LotRow | null>;
  /** Whether the lot has a base district; null when the parcel layer has no such lot. */
  lotHasZone(parcelExtId: string): MaybePromise<boolean | null>;
}

const boxLiteral = (b: BBox) => `(${b[0]},${b[1]}),(${b[2]},${b[3]})`;

/** The database as the source of lot reads: one query a read. */
export function sqlLots(db: Queryable, placeId: string): LotReads {
  return {
    parcelsInBox: (box) =>
      db.query<{ parcel_ext_id: string; geom: unknown }>(
        `SELECT parcel_ext_id, geom FROM parcels WHERE place_id = $1 AND bbox && $2::box ORDER BY parcel_ext_id`,
        [placeId, boxLiteral(box)],
      ),
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
      (
        await db.query<{ has_zone: boolean }>(`SELECT (p.primary_zone IS NOT NULL) AS has_zone FROM parcels p WHERE p.place_id = $1 AND p.parcel_ext_id = $2`, [
          placeId,
          id,
        ])
      )[0]?.has_zone ?? null,
  };
}

/** Places with at most this many parcels keep their lot geometry in memory (bbox lookups without SQL). */
const GEOMETRY_IN_MEMORY_MAX_PARCELS = 250_000;
/** Heap pages of the parcels table per chunk (a lot row with its geometry is 0.5-2 KB). */
const PAGES_PER_CHUNK = 1_000;
/** PostgreSQL's geometric comparisons are fuzzy by this much (EPSILON in geo_decls.h); && is too. */
const PG_EPSILON = 1e-6;
const GRID_DEG = 0.002;

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

/** One place's lots in memory: columns in typed arrays, strings interned, lots in id order. */
export class LotStore implements LotReads {
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
  private strings: string[] = [];
  /** Lots held, and whether their geometry is (places of at most GEOMETRY_IN_MEMORY_MAX_PARCELS). */
  count = 0;
  geometry = false;

  private constructor(
    readonly placeId: string,
    private readonly fallback: LotReads,
  ) {}

  /** Reads a place's lots from the database (no version check: the place index checks around its whole load). */
  static async load(db: Queryable, placeId: string): Promise<LotStore> {
    const s = new LotStore(placeId, sqlLots(db, placeId));
    await s.loadParcels(db);
    return s;
  }

  // Long because: one streaming read of the parcels into the store's typed arrays, grown in place as
  // chunks arrive; its dozen growing columns are locals the split parts would all have to share.
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
    // (The columns are grown in chunks: each is cut to its length by a copy below, a subarray would keep
    // the whole buffer, up to CHUNK rows more per place.)
    // A place that is most of the parcels table is read in chunks by physical page range (a TID range
    // scan reads just those pages): keyset pages over the id were planned as a scan of every remaining
    // row and a sort (quadratic at a million lots). A place that is a small share of the table (a town
    // among a thousand places) is read in keyset pages of its primary key: page ranges would read the
    // whole table for it.
    const cols = `parcel_ext_id, inside_lon, inside_lat, area_m2, facts::text AS facts, attrs::text AS attrs, source, vintage, zones::text AS zones,
                (primary_zone IS NOT NULL) AS has_zone${withGeom ? ', geom::text AS geom, bbox::text AS bbox' : ''}`;
    // The table is the place's partition (src/db/place-partitions.ts): a large place is alone in its own,
    // a small town shares a group's.
    const relation = await placeRelation(db, 'parcels', this.placeId);
    const tableRows = Number(
      (await db.query<{ n: number | string }>(`SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = to_regclass($1)`, [relation]))[0]?.n ?? 0,
    );
    const placeId = this.placeId;
    const chunks = async function* (): AsyncGenerator<ParcelChunkRow[]> {
      if (n > tableRows / 2) {
        const pages = Number(
          (
            await db.query<{ n: number | string }>(`SELECT (coalesce(pg_relation_size(to_regclass($1)), 0) / current_setting('block_size')::int) AS n`, [
              relation,
            ])
          )[0]?.n ?? 0,
        );
        for (let page = 0; page <= pages; page += PAGES_PER_CHUNK)
          yield chunkOf<ParcelChunkRow>(
            db,
            `SELECT ${cols} FROM parcels WHERE ctid >= $2::tid AND ctid < $3::tid AND place_id = $1`,
            [placeId, `(${page},0)`, `(${page + PAGES_PER_CHUNK},0)`],
            'parcel_ext_id',
          );
        return;
      }
      let after: string | null = null;
      for (;;) {
        const rows: ParcelChunkRow[] = await chunkOf<ParcelChunkRow>(
          db,
          `SELECT ${cols} FROM parcels WHERE place_id = $1${after === null ? '' : ' AND parcel_ext_id > $2'} ORDER BY place_id, parcel_ext_id LIMIT ${CHUNK}`,
          after === null ? [placeId] : [placeId, after],
          'parcel_ext_id',
        );
        yield rows;
        if (rows.length < CHUNK) return;
        after = rows[rows.length - 1]!.parcel_ext_id;
      }
    };
    for await (const rows of chunks()) {
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
    this.inLon = inLon.slice(0, count);
    this.inLat = inLat.slice(0, count);
    this.area = area.slice(0, count);
    this.zonesOf = zonesOf.slice(0, count);
    this.hasZone = hasZone.slice(0, count);
    this.src = src.slice(0, count);
    this.vintage = vintage.slice(0, count);
    this.corner = corner.slice(0, count);
    this.factsOf = factsOf.slice(0, count);
    factsIds.clear();
    this.frontStart = frontStart.slice(0, count + 1);
    this.frontKey = fKey.view();
    this.frontage = fFront.view();
    this.depth = fDepth.view();
    this.strings = strings.done();
    if (bbox && geom) {
      this.bbox = bbox.slice(0, count * 4);
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
    this.count = count;
    this.geometry = withGeom;
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
            (v) =>
              v !== null &&
              typeof v === 'object' &&
              typeof (v as Record<string, unknown>)['frontageM'] === 'number' &&
              typeof (v as Record<string, unknown>)['depthM'] === 'number',
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
  /** Position of a lot id in the parcel columns; -1 when the parcel layer has no such lot. */
  parcelIndex(id: string): number {
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

  /** Lot i's id. */
  idOf(i: number): string {
    return this.idText.slice(this.idStart[i]!, this.idStart[i + 1]!);
  }

  /** A lot's inside point (by its position). */
  lonAt(i: number): number {
    return this.inLon[i]!;
  }
  latAt(i: number): number {
    return this.inLat[i]!;
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
        if (
          bb[i * 4]! <= box[2] + PG_EPSILON &&
          box[0] <= bb[i * 4 + 2]! + PG_EPSILON &&
          bb[i * 4 + 1]! <= box[3] + PG_EPSILON &&
          box[1] <= bb[i * 4 + 3]! + PG_EPSILON
        )
          hit.add(i);
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

  /**
   * Approximate heap bytes held (typed arrays by their length, strings and tables by V8's layout):
   * what the hot index's byte budget counts.
   */
  bytes(): number {
    let n = stringBytes(this.idText);
    for (const a of [
      this.idStart,
      this.inLon,
      this.inLat,
      this.area,
      this.zonesOf,
      this.hasZone,
      this.src,
      this.vintage,
      this.corner,
      this.frontStart,
      this.frontKey,
      this.frontage,
      this.depth,
      this.factsOf,
    ])
      n += a.byteLength + 64;
    n += stringsBytes(this.zoneTexts) + stringsBytes(this.factsTexts) + stringsBytes(this.strings);
    n += tableBytes(this.zoneShared.size) + tableBytes(this.frontNull.size);
    n += tableBytes(this.attrsText.size);
    for (const s of this.attrsText.values()) n += stringBytes(s);
    if (this.geomText) n += stringsBytes(this.geomText);
    if (this.bbox) n += this.bbox.byteLength + 64;
    if (this.grid) {
      n += tableBytes(this.grid.size);
      for (const l of this.grid.values()) n += 32 + l.length * 8;
    }
    // not counted: the parsed zones kept for texts several lots share (at most ZONES_PARSED_MAX, made by reads)
    return n;
  }
}

const ZONES_PARSED_MAX = 20_000;

function cellsOf(x0: number, y0: number, x1: number, y1: number): number[] {
  const out: number[] = [];
  const cx0 = Math.floor((x0 - PG_EPSILON) / GRID_DEG);
  const cx1 = Math.floor((x1 + PG_EPSILON) / GRID_DEG);
  const cy0 = Math.floor((y0 - PG_EPSILON) / GRID_DEG);
  const cy1 = Math.floor((y1 + PG_EPSILON) / GRID_DEG);
  for (let x = cx0; x <= cx1; x++) for (let y = cy0; y <= cy1; y++) out.push(x * 1_000_003 + y);
  return out;
}
