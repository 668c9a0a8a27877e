// Derives, for every lot of one place: the zoning districts (base and overlay) it lies in with their
// area shares (parcels.zones, parcels.primary_zone), and its frontage, depth and corner facts (parcels.facts).
// Everything is read once into typed arrays and flatbush indexes; no per-lot query.
// Two entry points over one engine:
//   derivePlaceLotFacts(q, placeId)  reads the loaded place from the database and writes back in batches;
//   computeLotFacts(input, onLot)    works on rows still in memory, so an importer can insert parcels
//                                    with their facts at once (an UPDATE of every parcel costs ~80 µs a
//                                    row on PGlite, more than all the geometry).
// Rules and thresholds: docs/lot-geometry.md.
import type { Queryable } from '../db/database.ts';
import type { MultiPolygonCoords, Position } from '../core/geo/primitives.ts';
import {
  PlaceFrame,
  PolygonSetBuilder,
  indexItems,
  itemFrameArea,
  itemVertexCount,
  type PolygonSet,
  type PolygonSetSizeHint,
} from '../core/geo/polygon-set.ts';
import { splitIntoPieces } from '../core/geo/lot-pieces.ts';
import { GrowableF64 } from '../core/geo/planar-ops.ts';
import { ZoneLayer, type RawZoneShare, type ZoneRecord, type ZoneShareStats } from '../core/geo/zone-shares.ts';
import { LotFabric, StreetIndex, lotFacts, type LotFacts } from '../core/geo/lot-facts.ts';

/** A district covering less than this fraction of a lot is a digitising sliver and is not recorded ... */
const MIN_DISTRICT_SHARE = 0.05;
/**
 * ... unless its piece is at least this area (1,000 sq ft): then it is recorded as a minor share
 * (attrs.minor, attrs.rule), which never makes a split lot nor a primary district.
 */
const MIN_DISTRICT_AREA_M2 = 1000 / 10.763910416709722;
const MINOR_SHARE_RULE = 'area_at_least_1000_sqft';
/** Lots with more vertices than this are cut into pieces for the zone intersection. */
const BIG_LOT_VERTICES = 256;
const PIECE_VERTICES = 64;
const READ_BATCH = 20_000;
const WRITE_BATCH = 5_000;

export interface DeriveReport {
  parcels: number;
  parcelsWithBaseZone: number;
  /** Lots with two or more base districts each covering >= MIN_DISTRICT_SHARE. */
  splitLots: number;
  parcelsWithOverlay: number;
  parcelsWithFrontage: number;
  cornerLots: number;
  ms: number;
  /** Lots that needed an exact intersection area (the rest took the fast path). */
  clippedLots: number;
  /** Lots whose exact shares came out unusable (they fell back to their inside point's districts). */
  clipFailures: number;
  /** Lots with a district piece under 5 % but >= 1,000 sq ft (base or overlay), recorded as a minor share. */
  lotsWithMinorShares: number;
}

export interface DeriveOptions {
  onProgress?: (msg: string) => void;
  /** The lots' sizes, when known before reading them: the index arrays are allocated once (less memory at the peak). */
  sizeHint?: PolygonSetSizeHint;
}

/** Parcel facts as stored in parcels.facts. */
export type ParcelFacts = LotFacts;

/** One of a lot's districts (an element of parcels.zones). */
export interface LotZoneRow {
  layer: 'base' | 'overlay';
  code: string;
  name: string | null;
  /** Fraction of the lot's area in the district, 0..1 (not renormalised after dropping slivers). */
  share: number;
  attrs: { areaM2: number; primary?: boolean; minor?: boolean; rule?: typeof MINOR_SHARE_RULE };
}

export interface LotFactsInput {
  parcels: Iterable<{ parcelExtId: string; geom: MultiPolygonCoords; insideLon: number; insideLat: number }>;
  zones: Iterable<{ zoneId: string; layer: string; code: string; name: string | null; geom: MultiPolygonCoords }>;
  /** LineString or MultiLineString coordinates. */
  streets: Iterable<{ streetKey: string; geom: Position[] | Position[][] }>;
}

/**
 * Facts and district rows of every parcel of `input`, handed to onLot parcel by parcel (in input
 * order). Nothing is written anywhere.
 */
export function computeLotFacts(
  input: LotFactsInput,
  onLot: (parcelExtId: string, facts: ParcelFacts, zones: LotZoneRow[]) => void,
  opts: DeriveOptions = {},
): DeriveReport {
  const it = iterateLotFacts(input, opts);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    onLot(r.value.id, r.value.facts, r.value.zones);
  }
}

/**
 * The same as computeLotFacts, one lot at a time: indexes every input first (compactly, in typed
 * arrays), then derives lot i when asked, so a caller can load lots batch by batch while holding
 * only one batch of results (the 1,000,000-parcel bench relies on this). Returns the report when done.
 */
export function* iterateLotFacts(
  input: LotFactsInput,
  opts: DeriveOptions = {},
): Generator<{ id: string; facts: ParcelFacts; zones: LotZoneRow[] }, DeriveReport> {
  const started = Date.now();
  const lots = new LotsBuilder(opts.sizeHint);
  for (const p of input.parcels) lots.add(p.parcelExtId, p.geom, p.insideLon, p.insideLat);
  const report = emptyReport(lots.ids.length);
  if (!lots.frame) return { ...report, ms: Date.now() - started };
  const engine = new LotFactsEngine(lots.finish(), zoneLayers(input.zones, lots.frame), streetIndex(input.streets, lots.frame), opts.onProgress);
  for (let i = 0; i < engine.count; i++) yield engine.derive(i, report);
  return engine.finish(report, started);
}

export async function derivePlaceLotFacts(q: Queryable, placeId: string, opts: DeriveOptions = {}): Promise<DeriveReport> {
  const started = Date.now();
  const progress = opts.onProgress ?? (() => undefined);
  const lots = await readLots(q, placeId);
  const report = emptyReport(lots.ids.length);
  if (!lots.frame) return { ...report, ms: Date.now() - started };
  const frame = lots.frame;
  progress(`lot facts: ${lots.ids.length} lots read in ${Date.now() - started} ms`);
  const zoneRows = await q.query<{ zone_id: string; layer: string; code: string; name: string | null; geom: unknown }>(
    'SELECT zone_id, layer, code, name, geom FROM zones WHERE place_id = $1 ORDER BY zone_id',
    [placeId],
  );
  const streetRows = await q.query<{ street_key: string; geom: unknown }>(
    'SELECT street_key, geom FROM street_segments WHERE place_id = $1 ORDER BY segment_id',
    [placeId],
  );
  const engine = new LotFactsEngine(
    lots.finish(),
    zoneLayers(
      zoneRows.map((r) => ({ zoneId: r.zone_id, layer: r.layer, code: r.code, name: r.name, geom: parseJson(r.geom) as MultiPolygonCoords })),
      frame,
    ),
    streetIndex(
      streetRows.map((r) => ({ streetKey: r.street_key, geom: parseJson(r.geom) as Position[] })),
      frame,
    ),
    progress,
  );

  const batch = new WriteBatch();
  let writeMs = 0;
  const flush = async () => {
    const t0 = Date.now();
    await batch.flush(q, placeId);
    writeMs += Date.now() - t0;
  };
  for (let i = 0; i < engine.count; i++) {
    const r = engine.derive(i, report);
    batch.push(r.id, r.facts, r.zones);
    if (batch.size >= WRITE_BATCH) await flush();
  }
  await flush();
  progress(`lot facts: writes took ${writeMs} ms`);
  return engine.finish(report, started);
}

function emptyReport(parcels: number): DeriveReport {
  return {
    parcels,
    parcelsWithBaseZone: 0,
    splitLots: 0,
    parcelsWithOverlay: 0,
    parcelsWithFrontage: 0,
    cornerLots: 0,
    ms: 0,
    clippedLots: 0,
    clipFailures: 0,
    lotsWithMinorShares: 0,
  };
}

interface LoadedLots {
  ids: string[];
  set: PolygonSet;
  /** Inside point of lot i at (2i, 2i+1), frame coordinates. */
  inside: Float64Array;
  frame: PlaceFrame;
}

/** The per-lot derivation over a loaded place. */
class LotFactsEngine {
  private readonly fabric: LotFabric;
  private readonly stats: ZoneShareStats = { clipped: 0, clipFailures: 0 };
  readonly count: number;

  constructor(
    private readonly lots: LoadedLots,
    private readonly layers: { base: ZoneLayer; overlay: ZoneLayer },
    private readonly streets: StreetIndex,
    private readonly progress: ((msg: string) => void) | undefined,
  ) {
    this.count = lots.ids.length;
    this.fabric = new LotFabric(lots.set, indexItems(lots.set), streets, lots.frame);
    progress?.(`lot facts: ${layers.base.zones.length} base districts, ${layers.overlay.zones.length} overlays, ${streets.edgeCount} street edges indexed`);
  }

  derive(i: number, report: DeriveReport): { id: string; facts: ParcelFacts; zones: LotZoneRow[] } {
    const { lots, stats } = this;
    const set = lots.set;
    const ix = lots.inside[2 * i]!;
    const iy = lots.inside[2 * i + 1]!;
    const lotAreaM2 = itemFrameArea(set, i) * lots.frame.xScaleAt(iy);
    const pieces = itemVertexCount(set, i) > BIG_LOT_VERTICES ? splitIntoPieces(set, i, PIECE_VERTICES, lots.frame) : undefined;
    const zones: LotZoneRow[] = [];
    const base = keepDistricts(this.layers.base.sharesForLot(set, i, ix, iy, stats, pieces), lotAreaM2);
    const major = base.filter((s) => s.share >= MIN_DISTRICT_SHARE).length;
    if (major) report.parcelsWithBaseZone++;
    if (major >= 2) report.splitLots++;
    let minor = major < base.length;
    for (let k = 0; k < base.length; k++) zones.push(zoneRow('base', base[k]!, lotAreaM2, k === 0 && base[k]!.share >= MIN_DISTRICT_SHARE));
    const overlay = keepDistricts(this.layers.overlay.sharesForLot(set, i, ix, iy, stats, pieces), lotAreaM2);
    if (overlay.some((s) => s.share >= MIN_DISTRICT_SHARE)) report.parcelsWithOverlay++;
    if (overlay.some((s) => s.share < MIN_DISTRICT_SHARE)) minor = true;
    if (minor) report.lotsWithMinorShares++;
    for (const s of overlay) zones.push(zoneRow('overlay', s, lotAreaM2, false));
    const facts = lotFacts(this.fabric, i, this.streets);
    // Without centrelines a lot has a frontage when its unshared edges make one side (docs/lot-geometry.md).
    if (facts.streets.length || facts.unshared?.sides.length === 1) report.parcelsWithFrontage++;
    if (facts.cornerLot) report.cornerLots++;
    if ((i + 1) % 100_000 === 0) this.progress?.(`lot facts: ${i + 1} of ${this.count} lots`);
    return { id: lots.ids[i]!, facts, zones };
  }

  finish(report: DeriveReport, started: number): DeriveReport {
    report.clippedLots = this.stats.clipped;
    report.clipFailures = this.stats.clipFailures;
    report.ms = Date.now() - started;
    this.progress?.(
      `lot facts: ${report.parcels} lots, ${report.splitLots} split, ${report.parcelsWithOverlay} in overlays, ${report.parcelsWithFrontage} with frontage, ${report.cornerLots} corner, ${report.clippedLots} clipped, ${report.ms} ms`,
    );
    return report;
  }
}

/**
 * A lot's districts as stored on its parcel row (parcels.zones, parcels.primary_zone): base and
 * overlay together, largest share first, then by code; the primary zone is the first base district.
 */
function storedLotZones(zones: readonly LotZoneRow[]): { json: string; primaryZone: string | null } {
  const sorted = [...zones].sort((a, b) => b.share - a.share || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  // The primary is the first base district in the stored order (what the snapshot reads), so the
  // column, the flag and the list agree even when two shares tie after rounding.
  const primary = sorted.find((z) => z.layer === 'base' && !z.attrs.minor);
  const stored = sorted.map((z) => ({
    layer: z.layer,
    code: z.code,
    name: z.name,
    share: z.share,
    attrs: z.layer === 'base' ? { ...z.attrs, primary: z === primary } : z.attrs,
  }));
  return { json: JSON.stringify(stored), primaryZone: primary?.code ?? null };
}

/** Districts covering >= 5 % of the lot, or a piece of >= 1,000 sq ft (a minor share). Shares arrive largest first. */
function keepDistricts(shares: RawZoneShare[], lotAreaM2: number): RawZoneShare[] {
  return shares.filter((s) => s.share >= MIN_DISTRICT_SHARE || s.share * lotAreaM2 >= MIN_DISTRICT_AREA_M2);
}

function zoneRow(layer: 'base' | 'overlay', s: RawZoneShare, lotAreaM2: number, primary: boolean): LotZoneRow {
  const attrs: LotZoneRow['attrs'] = { areaM2: Math.round(s.share * lotAreaM2 * 100) / 100 };
  if (layer === 'base') attrs.primary = primary;
  if (s.share < MIN_DISTRICT_SHARE) {
    attrs.minor = true;
    attrs.rule = MINOR_SHARE_RULE;
  }
  return { layer, code: s.code, name: s.name, share: Math.round(s.share * 1e6) / 1e6, attrs };
}

/** Derived lots as their parcel rows store them: column arrays of JSON text, ready to write. */
export interface StoredLotBatch {
  ids: string[];
  facts: string[];
  zones: string[];
  primary: (string | null)[];
  /** District rows in the batch (for the load report). */
  shares: number;
}

const emptyStoredBatch = (): StoredLotBatch => ({ ids: [], facts: [], zones: [], primary: [], shares: 0 });

function pushStoredLot(b: StoredLotBatch, id: string, facts: ParcelFacts, zones: readonly LotZoneRow[]): void {
  const stored = storedLotZones(zones);
  b.ids.push(id);
  b.facts.push(JSON.stringify(facts));
  b.zones.push(stored.json);
  b.primary.push(stored.primaryZone);
  b.shares += zones.length;
}

/** iterateLotFacts' lots encoded for their parcel rows, `size` at a time; returns the report. */
export function* storedLotBatches(
  lots: Generator<{ id: string; facts: ParcelFacts; zones: LotZoneRow[] }, DeriveReport>,
  size: number,
): Generator<StoredLotBatch, DeriveReport> {
  let b = emptyStoredBatch();
  for (;;) {
    const r = lots.next();
    if (r.done) {
      if (b.facts.length) yield b;
      return r.value;
    }
    pushStoredLot(b, r.value.id, r.value.facts, r.value.zones);
    if (b.facts.length >= size) {
      yield b;
      b = emptyStoredBatch();
    }
  }
}

/** The batched UPDATE of parcels.facts, parcels.zones and parcels.primary_zone. */
class WriteBatch {
  private b = emptyStoredBatch();

  get size(): number {
    return this.b.ids.length;
  }

  push(id: string, facts: ParcelFacts, zones: LotZoneRow[]): void {
    pushStoredLot(this.b, id, facts, zones);
  }

  async flush(q: Queryable, placeId: string): Promise<void> {
    const b = this.b;
    if (b.ids.length) {
      await q.query(
        `UPDATE parcels p SET facts = v.facts::json, zones = v.zones::json, primary_zone = v.primary_zone
           FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS v(id, facts, zones, primary_zone)
          WHERE p.place_id = $1 AND p.parcel_ext_id = v.id`,
        [placeId, b.ids, b.facts, b.zones, b.primary],
      );
    }
    this.b = emptyStoredBatch();
  }
}

/** Accumulates lots into a PolygonSet; the frame is centred on the first lot's inside point. */
class LotsBuilder {
  readonly ids: string[] = [];
  private readonly inside: GrowableF64;
  frame: PlaceFrame | null = null;
  private builder: PolygonSetBuilder | null = null;
  constructor(private readonly hint?: PolygonSetSizeHint) {
    this.inside = new GrowableF64(hint ? Math.max(2, 2 * hint.items) : 1024);
  }

  add(id: string, geom: MultiPolygonCoords, insideLon: number, insideLat: number): void {
    if (!this.frame) this.frame = new PlaceFrame(insideLon, insideLat);
    this.builder ??= new PolygonSetBuilder(this.frame, this.hint);
    this.builder.add(Array.isArray(geom) ? geom : []);
    this.ids.push(id);
    this.inside.push(this.frame.x(insideLon));
    this.inside.push(this.frame.y(insideLat));
  }

  finish(): LoadedLots {
    if (!this.frame || !this.builder) throw new Error('no lots');
    return { ids: this.ids, set: this.builder.finish(), inside: this.inside.finish(), frame: this.frame };
  }
}

/**
 * Reads the place's lots in keyset-paginated batches. Each batch comes back as one JSON text
 * (fewer protocol rows: about twice as fast on PGlite as one row per lot).
 */
async function readLots(q: Queryable, placeId: string): Promise<LotsBuilder> {
  const lots = new LotsBuilder();
  let after = '';
  for (;;) {
    const [row] = await q.query<{ j: string | null; last: string | null; n: number }>(
      `SELECT '[' || string_agg(json_build_array(parcel_ext_id, geom, inside_lon, inside_lat)::text, ',') || ']' AS j,
              max(parcel_ext_id) AS last, count(*)::int AS n
         FROM (SELECT parcel_ext_id, geom, inside_lon, inside_lat FROM parcels
                WHERE place_id = $1 AND parcel_ext_id > $2 ORDER BY parcel_ext_id LIMIT ${READ_BATCH}) s`,
      [placeId, after],
    );
    if (!row?.j || !row.last) break;
    const rows = JSON.parse(row.j) as [string, MultiPolygonCoords, number, number][];
    for (const [id, geom, lon, lat] of rows) lots.add(id, geom, lon, lat);
    after = row.last;
    if (row.n < READ_BATCH) break;
  }
  return lots;
}

function parseJson(v: unknown): unknown {
  return typeof v === 'string' ? JSON.parse(v) : v;
}

function zoneLayers(zones: LotFactsInput['zones'], frame: PlaceFrame): { base: ZoneLayer; overlay: ZoneLayer } {
  const builders = { base: new PolygonSetBuilder(frame), overlay: new PolygonSetBuilder(frame) };
  const records: { base: ZoneRecord[]; overlay: ZoneRecord[] } = { base: [], overlay: [] };
  for (const z of zones) {
    if (z.layer !== 'base' && z.layer !== 'overlay') continue;
    builders[z.layer].add(Array.isArray(z.geom) ? z.geom : []);
    records[z.layer].push({ zoneId: z.zoneId, code: z.code, name: z.name });
  }
  return { base: new ZoneLayer(records.base, builders.base.finish()), overlay: new ZoneLayer(records.overlay, builders.overlay.finish()) };
}

function streetIndex(streets: LotFactsInput['streets'], frame: PlaceFrame): StreetIndex {
  const lines: { streetKey: string; coords: Float64Array }[] = [];
  for (const s of streets) {
    const geom = s.geom;
    if (!Array.isArray(geom) || geom.length === 0) continue;
    const parts = (Array.isArray(geom[0]?.[0]) ? geom : [geom]) as Position[][];
    for (const part of parts) {
      const coords = new Float64Array(part.length * 2);
      part.forEach((pt, k) => {
        coords[2 * k] = frame.x(pt[0]);
        coords[2 * k + 1] = frame.y(pt[1]);
      });
      lines.push({ streetKey: s.streetKey, coords });
    }
  }
  return new StreetIndex(lines);
}
