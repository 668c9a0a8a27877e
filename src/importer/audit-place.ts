// The accuracy audit of one place (issue 15 item 8): every distinct address of the place's address
// table goes through the geocoder exactly as the snapshot calls it (parseAddress -> geocodeInPlace),
// and the lot it answers is scored against two references that do not come from the geocoder: the
// source's own address -> lot join (the address row's lot id, when that lot is in the parcel layer)
// and the point-in-lot test (the address point inside the answered lot's polygon). Reported: rates by
// match type, a calibration table (share right per confidence band), the addresses the references
// cannot check (the weak band), the worst disagreements and the data vintages. Stored in place_audits
// and shown on /coverage; rerun after every import that changes the place (docs/audit.md).
import type { AppContext } from '../context.ts';
import { giveWayToRequests } from './background-pace.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError } from '../core/errors.ts';
import { boxLiteral, distanceM, pointInMultiPolygon, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import { geocodeInPlace, type MatchType } from '../geocoder/geocode.ts';
import { sqlSource } from '../geocoder/place-index.ts';
import { forgetPlaceCalibration, withoutAddress, type HeldOutRow, type PlaceCalibration } from '../geocoder/calibration.ts';
import { ASSESSOR_FAR_BAND } from '../geocoder/lot-fronts-street.ts';
import { getPlaceBySlug, type PlaceRecord } from '../places/catalogue.ts';
import { canonicalJson, digestOf } from './manifest.ts';

/** Bumped when the audit's method or shape changes. */
export const AUDIT_VERSION = 4; // 2: the town's own lot id as reference (source_lot_id), id-vs-point, outside the boundary; 3: the held-out calibration table; 4: its assessor_far band
/** Confidence bands of the calibration table, highest first: [min, max). The top band includes 1. */
export const CONFIDENCE_BANDS: readonly (readonly [number, number])[] = [
  [0.95, 1],
  [0.9, 0.95],
  [0.8, 0.9],
  [0.7, 0.8],
  [0.6, 0.7],
  [0.5, 0.6],
  [0, 0.5],
];
/** How many wrong answers and missed addresses the report lists. */
export const WORST_LISTED = 25;
/** How many addresses are also run through the whole snapshot, to show the audit measures what it answers. */
export const SNAPSHOT_CROSS_CHECK = 50;

/** Where the source's address row puts the address. */
export type SourceJoin = 'lot_in_layer' | 'lot_missing_from_layer' | 'no_lot_in_source';
export type Verdict = 'right' | 'wrong' | 'unverifiable';

export interface Rate {
  checked: number;
  agree: number;
  /** agree / checked, 0..1; null when nothing could be checked. */
  rate: number | null;
}

export interface MatchTypeRow {
  matchType: MatchType | 'failed';
  addresses: number;
  /** Checked against a reference (source join or point-in-lot). */
  checked: number;
  right: number;
  shareRight: number | null;
  meanConfidence: number | null;
}

export interface CalibrationRow {
  band: string;
  min: number;
  max: number;
  answered: number;
  checked: number;
  right: number;
  /** right / checked: compare with meanConfidence (well calibrated when they are close). */
  shareRight: number | null;
  meanConfidence: number | null;
  /** Answered in this band but not checkable (the source has no lot in the layer and no address point). */
  unverifiable: number;
}

export interface AuditedAddress {
  address: string;
  sourceJoin: SourceJoin;
  /** The source's lots for this address that are in the parcel layer, and those that are not. */
  sourceLots: string[];
  missingLots: string[];
  answeredLot: string | null;
  matchType: MatchType | null;
  confidence: number | null;
  /** The address point lies in the answered lot (null: no point, or no answer). */
  pointInLot: boolean | null;
  /** The lot containing the address point, when it is not the answered one. */
  pointLot?: string | null;
  /** Metres between the answered lot and the source's lot (inside points). */
  distanceM?: number | null;
  reason?: string;
}

export interface PlaceAudit {
  auditVersion: number;
  slug: string;
  placeId: string;
  name: string;
  generatedAt: string;
  durationMs: number;
  /** The import the audit describes (places.import_report.sourceDigest) and when it finished. */
  sourceDigest: string | null;
  importedAt: string | null;
  /** sha256 of every result below (not the timings): two audits of the same data and code have the same digest. */
  resultDigest: string;
  method: string;
  /** pointsOutsidePlace: address rows whose point lies outside the place's box (e.g. an empty coordinate read as 0): not used. */
  scope: { addressRows: number; distinctAddresses: number; audited: number; sampled: boolean; withPoint: number; pointsOutsidePlace: number };
  sourceJoin: Record<SourceJoin, number>;
  headline: { answered: number; failed: number; checked: number; right: number; wrong: number; unverifiable: number; shareRight: number | null };
  agreement: {
    /** The answered lot is one of the source's own lots for the address (addresses whose lot is in the layer). */
    sourceJoin: Rate;
    /** The address point lies inside the answered lot (addresses with a point). */
    pointInLot: Rate;
    /** The source's own lot contains the address point (the source's id against its geometry; no geocoder involved). */
    sourceLotContainsPoint: Rate;
  };
  /** The town's own lot id against the address point (no geocoder): addresses whose point lies in another lot, with examples. */
  idVsPoint: { checked: number; disagree: number; examples: { address: string; ownLots: string[]; pointLot: string | null; answeredLot: string | null }[] };
  /** Address points outside the place's boundary (town limits), when it has one; counted, with examples. */
  outsideBoundary: { boundary: boolean; withPoint: number; outside: number; examples: string[] };
  byMatchType: MatchTypeRow[];
  calibration: CalibrationRow[];
  /**
   * The methods that stand in when the address table cannot answer, measured: every address whose lot
   * the source gives is answered again with its own rows held out of the address table. Answers from
   * those methods report this table's share right for their band (src/geocoder/calibration.ts).
   */
  heldOut: PlaceCalibration & { failed: number };
  /** Addresses whose lot is missing from the parcel layer or absent from the source: what they got. */
  weakBand: {
    addresses: number;
    lotMissingFromLayer: number;
    noLotInSource: number;
    answered: number;
    failed: number;
    checkedByPoint: number;
    rightByPoint: number;
    byMatchType: { matchType: MatchType | 'failed'; addresses: number; meanConfidence: number | null }[];
    byBand: { band: string; answered: number }[];
    note: string;
  };
  worstDisagreements: AuditedAddress[];
  /** Addresses the source ties to a lot in the layer that the pipeline did not answer. */
  missed: { count: number; examples: AuditedAddress[] };
  /** A sample also run through getFeasibilitySnapshot: the lot it answers is the one audited. */
  snapshotCrossCheck: { checked: number; sameLot: number; differences: { address: string; audited: string | null; snapshot: string | null; error?: string }[] } | null;
  vintages: { layer: string; name: string; vintage: string }[];
}

export interface AuditOptions {
  /** Audit at most this many addresses, spread evenly over the sorted list (tests); default: all. */
  sample?: number;
  /** Cross-check this many addresses through the whole snapshot (default SNAPSHOT_CROSS_CHECK; 0: none). */
  snapshotCheck?: number;
  onProgress?: (msg: string) => void;
  /** Let other work run (setImmediate) after this many addresses: for an audit running beside a live server. */
  yieldEvery?: number;
  /** Awaited before each address (and each cross-checked snapshot): a background audit gives way to requests (background-pace.ts). */
  pause?: () => Promise<void>;
}

interface AddressGroup {
  address: string;
  lots: string[];
  point: Position | null;
}

const rate = (agree: number, checked: number): Rate => ({ checked, agree, rate: checked === 0 ? null : agree / checked });
const share = (n: number, d: number): number | null => (d === 0 ? null : n / d);
const mean = (xs: number[]): number | null => (xs.length === 0 ? null : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000);
const bandLabel = ([min, max]: readonly [number, number]) => `${min.toFixed(2)}-${max.toFixed(2)}`;
function bandOf(c: number): readonly [number, number] {
  return CONFIDENCE_BANDS.find(([min]) => c >= min) ?? CONFIDENCE_BANDS[CONFIDENCE_BANDS.length - 1]!;
}

/** Distinct full addresses with their source lots and first address point, sorted for reproducibility. */
async function addressGroups(
  q: Queryable,
  placeId: string,
  bbox: PlaceRecord['bbox'],
): Promise<{ rows: number; groups: AddressGroup[]; pointsIgnored: number; outsideBoundary: PlaceAudit['outsideBoundary'] }> {
  // The reference lot is the town's own lot id (source_lot_id), kept whatever join found the answered
  // lot: with lotBy point the stored parcel_ext_id is the point's lot, and comparing with it would be
  // comparing the point join with itself.
  const rows = await q.query<{ full_address: string; source_lot_id: string | null; lon: number | null; lat: number | null }>(
    'SELECT full_address, source_lot_id, lon, lat FROM addresses WHERE place_id = $1 ORDER BY row_no',
    [placeId],
  );
  const [boundary] = await q.query<{ geom: MultiPolygonCoords | { type: string; coordinates: unknown } }>('SELECT geom FROM place_boundaries WHERE place_id = $1', [placeId]);
  const limits = boundary ? ((Array.isArray(boundary.geom) ? boundary.geom : (boundary.geom as { coordinates: MultiPolygonCoords }).coordinates) as MultiPolygonCoords) : null;
  const outsideBoundary: PlaceAudit['outsideBoundary'] = { boundary: limits !== null, withPoint: 0, outside: 0, examples: [] };
  const byAddress = new Map<string, AddressGroup>();
  let pointsIgnored = 0;
  for (const r of rows) {
    let g = byAddress.get(r.full_address);
    if (!g) byAddress.set(r.full_address, (g = { address: r.full_address, lots: [], point: null }));
    if (r.source_lot_id && !g.lots.includes(r.source_lot_id)) g.lots.push(r.source_lot_id);
    if (r.lon === null || r.lat === null || !Number.isFinite(r.lon) || !Number.isFinite(r.lat)) continue;
    // Address points outside the place's boundary (town limits) are counted, not left out silently.
    if (limits) {
      outsideBoundary.withPoint++;
      if (!pointInMultiPolygon([r.lon, r.lat], limits)) {
        outsideBoundary.outside++;
        if (outsideBoundary.examples.length < 10) outsideBoundary.examples.push(r.full_address);
      }
    }
    // A point outside the place (an empty coordinate read as 0, 0) is no address point.
    if (bbox && (r.lon < bbox[0] || r.lon > bbox[2] || r.lat < bbox[1] || r.lat > bbox[3])) {
      pointsIgnored++;
      continue;
    }
    if (!g.point) g.point = [r.lon, r.lat];
  }
  const groups = [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { rows: rows.length, groups, pointsIgnored, outsideBoundary };
}

function sampleOf<T>(all: T[], n: number | undefined): T[] {
  if (n === undefined || n >= all.length) return all;
  const out: T[] = [];
  const step = all.length / n;
  for (let i = 0; i < n; i++) out.push(all[Math.floor(i * step)]!);
  return out;
}

/** Runs the audit of a place on the database it is imported in. Throws not_found for an unknown or unimported place. */
export async function auditPlace(ctx: AppContext, slug: string, opts: AuditOptions = {}): Promise<PlaceAudit> {
  const started = Date.now();
  const place = await getPlaceBySlug(ctx, slug);
  if (!place) throw new SitelineError('not_found', `No place "${slug}" in the catalogue.`);
  const [imp] = await ctx.db.query<{ digest: string | null; imported_at: Date | string | null }>(
    `SELECT import_report->>'sourceDigest' AS digest, imported_at FROM places WHERE place_id = $1`,
    [place.geoDivisionId],
  );
  if (!imp?.imported_at) throw new SitelineError('not_found', `${slug} is not imported in this database: run \`siteline data import ${slug}\` first.`);
  const placeId = place.geoDivisionId;

  const { rows, groups: allGroups, pointsIgnored, outsideBoundary } = await addressGroups(ctx.db, placeId, place.bbox);
  const groups = sampleOf(allGroups, opts.sample);
  const parcelRows = await ctx.db.query<{ parcel_ext_id: string; inside_lon: number; inside_lat: number }>(
    'SELECT parcel_ext_id, inside_lon, inside_lat FROM parcels WHERE place_id = $1',
    [placeId],
  );
  const inside = new Map<string, Position>(parcelRows.map((p) => [p.parcel_ext_id, [p.inside_lon, p.inside_lat]]));
  const geomCache = new Map<string, MultiPolygonCoords | null>();
  const geomOf = async (id: string): Promise<MultiPolygonCoords | null> => {
    if (!geomCache.has(id)) {
      const [r] = await ctx.db.query<{ geom: unknown }>('SELECT geom FROM parcels WHERE place_id = $1 AND parcel_ext_id = $2', [placeId, id]);
      geomCache.set(id, r ? ((typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords) : null);
    }
    return geomCache.get(id)!;
  };

  const results: AuditedAddress[] = [];
  const sql = sqlSource(ctx.db, placeId);
  const heldOut: ({ matchType: MatchType; confidence: number; right: boolean; far: boolean } | null)[] = [];
  let n = 0;
  for (const g of groups) {
    if (opts.pause) await opts.pause();
    const sourceLots = g.lots.filter((id) => inside.has(id));
    const missingLots = g.lots.filter((id) => !inside.has(id));
    const sourceJoin: SourceJoin = sourceLots.length ? 'lot_in_layer' : missingLots.length ? 'lot_missing_from_layer' : 'no_lot_in_source';
    const r: AuditedAddress = { address: g.address, sourceJoin, sourceLots, missingLots, answeredLot: null, matchType: null, confidence: null, pointInLot: null };
    let parsed: ReturnType<typeof parseAddress> | null = null;
    try {
      // The text a user would type, through the same two calls the snapshot makes before it loads the lot.
      parsed = parseAddress(`${g.address}, ${place.name}, ${place.region}`);
      const got = await geocodeInPlace(ctx, placeId, parsed);
      if (got.kind === 'matched' && got.parcelExtId) {
        r.answeredLot = got.parcelExtId;
        r.matchType = got.matchType;
        r.confidence = got.confidence;
      } else {
        r.reason = got.kind === 'failed' ? got.reason : 'the address matched, but no lot holds it';
      }
    } catch (err) {
      r.reason = err instanceof SitelineError ? `bad input: ${err.message}` : String(err);
    }
    if (r.answeredLot && g.point) {
      const geom = await geomOf(r.answeredLot);
      r.pointInLot = geom ? pointInMultiPolygon(g.point, geom) : false;
    }
    if (sourceLots.length) {
      // The same address with its own rows held out: what the stand-in methods answer, against the source's lot.
      // An address that cannot be read has no held-out answer; a failing lookup stops the audit (logged).
      if (!parsed) heldOut.push(null);
      else {
        const held = await geocodeInPlace(ctx, placeId, parsed, withoutAddress(sql, g.address));
        heldOut.push(held.kind === 'matched' && held.parcelExtId ? { matchType: held.matchType, confidence: held.confidence, right: sourceLots.includes(held.parcelExtId), far: held.band === ASSESSOR_FAR_BAND } : null);
      }
    }
    results.push(r);
    if (opts.yieldEvery && n % opts.yieldEvery === 0) await new Promise((resolve) => setImmediate(resolve));
    if (++n % 5000 === 0) opts.onProgress?.(`${slug}: audited ${n}/${groups.length} addresses`);
  }

  const verdict = (r: AuditedAddress): Verdict => {
    if (!r.answeredLot) return 'unverifiable';
    if (r.sourceJoin === 'lot_in_layer') return r.sourceLots.includes(r.answeredLot) ? 'right' : 'wrong';
    if (r.pointInLot !== null) return r.pointInLot ? 'right' : 'wrong';
    return 'unverifiable';
  };
  const answered = results.filter((r) => r.answeredLot);
  const verdicts = new Map(results.map((r) => [r, verdict(r)] as const));
  const checked = answered.filter((r) => verdicts.get(r) !== 'unverifiable');
  const right = checked.filter((r) => verdicts.get(r) === 'right');
  const wrong = checked.filter((r) => verdicts.get(r) === 'wrong');

  // The source's own lot against the address point: the source's id against its geometry.
  let srcPointChecked = 0;
  let srcPointAgree = 0;
  const idVsPointExamples: PlaceAudit['idVsPoint']['examples'] = [];
  for (const [i, g] of groups.entries()) {
    const r = results[i]!;
    if (!g.point || r.sourceLots.length === 0) continue;
    if (opts.pause && i % 20 === 0) await opts.pause();
    srcPointChecked++;
    let agrees = false;
    for (const id of r.sourceLots) {
      const geom = await geomOf(id);
      if (geom && pointInMultiPolygon(g.point, geom)) {
        srcPointAgree++;
        agrees = true;
        break;
      }
    }
    if (!agrees && idVsPointExamples.length < 10) idVsPointExamples.push({ address: g.address, ownLots: r.sourceLots, pointLot: await lotContaining(ctx.db, placeId, g.point), answeredLot: r.answeredLot });
  }

  const typeOrder: (MatchType | 'failed')[] = ['address_table', 'assessor_table', 'street_interpolation', 'failed'];
  const byMatchType: MatchTypeRow[] = typeOrder
    .map((t) => {
      const rs = results.filter((r) => (r.matchType ?? 'failed') === t);
      const ck = rs.filter((r) => verdicts.get(r) !== 'unverifiable');
      const ok = ck.filter((r) => verdicts.get(r) === 'right').length;
      return { matchType: t, addresses: rs.length, checked: ck.length, right: ok, shareRight: share(ok, ck.length), meanConfidence: mean(rs.flatMap((r) => (r.confidence === null ? [] : [r.confidence]))) };
    })
    .filter((row) => row.addresses > 0);

  const calibration: CalibrationRow[] = CONFIDENCE_BANDS.map((b) => {
    const rs = answered.filter((r) => bandOf(r.confidence!) === b);
    const ck = rs.filter((r) => verdicts.get(r) !== 'unverifiable');
    const ok = ck.filter((r) => verdicts.get(r) === 'right').length;
    return {
      band: bandLabel(b),
      min: b[0],
      max: b[1],
      answered: rs.length,
      checked: ck.length,
      right: ok,
      shareRight: share(ok, ck.length),
      meanConfidence: mean(rs.map((r) => r.confidence!)),
      unverifiable: rs.length - ck.length,
    };
  });

  const heldRows: HeldOutRow[] = (['assessor_table', 'street_interpolation'] as const).flatMap((t) =>
    CONFIDENCE_BANDS.map((b) => {
      const rs = heldOut.filter((h): h is NonNullable<typeof h> => h !== null && !h.far && h.matchType === t && bandOf(h.confidence) === b);
      const ok = rs.filter((h) => h.right).length;
      return { matchType: t, band: bandLabel(b), min: b[0], max: b[1], answered: rs.length, right: ok, shareRight: share(ok, rs.length), meanConfidence: mean(rs.map((h) => h.confidence)) };
    }).filter((row) => row.answered > 0),
  );
  // Assessor's listings on lots that do not front the named street: one band of their own, whatever their score.
  const far = heldOut.filter((h): h is NonNullable<typeof h> => h !== null && h.far);
  if (far.length) {
    const ok = far.filter((h) => h.right).length;
    heldRows.push({ matchType: 'assessor_table', band: ASSESSOR_FAR_BAND, min: 0, max: 1, answered: far.length, right: ok, shareRight: share(ok, far.length), meanConfidence: mean(far.map((h) => h.confidence)) });
  }

  const weak = results.filter((r) => r.sourceJoin !== 'lot_in_layer');
  const weakAnswered = weak.filter((r) => r.answeredLot);
  const weakByPoint = weakAnswered.filter((r) => r.pointInLot !== null);
  const weakBand: PlaceAudit['weakBand'] = {
    addresses: weak.length,
    lotMissingFromLayer: weak.filter((r) => r.sourceJoin === 'lot_missing_from_layer').length,
    noLotInSource: weak.filter((r) => r.sourceJoin === 'no_lot_in_source').length,
    answered: weakAnswered.length,
    failed: weak.length - weakAnswered.length,
    checkedByPoint: weakByPoint.length,
    rightByPoint: weakByPoint.filter((r) => r.pointInLot).length,
    byMatchType: typeOrder
      .map((t) => {
        const rs = weak.filter((r) => (r.matchType ?? 'failed') === t);
        return { matchType: t, addresses: rs.length, meanConfidence: mean(rs.flatMap((r) => (r.confidence === null ? [] : [r.confidence]))) };
      })
      .filter((x) => x.addresses > 0),
    byBand: CONFIDENCE_BANDS.map((b) => ({ band: bandLabel(b), answered: weakAnswered.filter((r) => bandOf(r.confidence!) === b).length })),
    note:
      weak.length === 0
        ? 'Every address has a lot of the parcel layer in the source.'
        : `${weak.length} address(es) have no lot of the parcel layer in the source (the lot is newer than the parcel layer, or the source gives none). ` +
          `Their answers come from other tables or from interpolation and cannot be checked against the source's join` +
          `${weakByPoint.length ? `; ${weakByPoint.length} were checked by their address point` : '; with no address points, they are not checked at all'}.`,
  };

  // Worst first: the most confident wrong answers, then the farthest from the source's lot.
  for (const r of wrong) {
    const a = inside.get(r.answeredLot!);
    const dists = r.sourceLots.map((id) => inside.get(id)).filter((p): p is Position => !!p && !!a).map((p) => distanceM(a!, p));
    r.distanceM = dists.length ? Math.round(Math.min(...dists)) : null;
  }
  const worst = [...wrong]
    .sort((a, b) => b.confidence! - a.confidence! || (b.distanceM ?? 0) - (a.distanceM ?? 0) || (a.address < b.address ? -1 : 1))
    .slice(0, WORST_LISTED);
  for (const r of worst) {
    const g = groups[results.indexOf(r)]!;
    if (g.point) r.pointLot = await lotContaining(ctx.db, placeId, g.point);
  }
  const missedAll = results.filter((r) => r.sourceJoin === 'lot_in_layer' && !r.answeredLot);

  // The same addresses through the whole snapshot (resolution of the place, the lot row): same lot.
  let snapshotCrossCheck: PlaceAudit['snapshotCrossCheck'] = null;
  const nCheck = opts.snapshotCheck ?? SNAPSHOT_CROSS_CHECK;
  if (nCheck > 0 && place.status === 'live' && results.length > 0) {
    const { getFeasibilitySnapshot } = await import('../snapshot/snapshot.ts');
    const picks = sampleOf(results, nCheck);
    const differences: NonNullable<PlaceAudit['snapshotCrossCheck']>['differences'] = [];
    for (const r of picks) {
      if (opts.pause) await opts.pause();
      let lot: string | null = null;
      let error: string | undefined;
      try {
        const s = await getFeasibilitySnapshot(ctx, `${r.address}, ${place.name}, ${place.region}`);
        lot = s.answered ? (s.lot?.parcelExternalId ?? null) : null;
      } catch (err) {
        error = (err as Error).message;
      }
      if (lot !== r.answeredLot) differences.push({ address: r.address, audited: r.answeredLot, snapshot: lot, ...(error ? { error } : {}) });
    }
    snapshotCrossCheck = { checked: picks.length, sameLot: picks.length - differences.length, differences: differences.slice(0, 10) };
  }

  const body = {
    scope: { addressRows: rows, distinctAddresses: allGroups.length, audited: groups.length, sampled: groups.length < allGroups.length, withPoint: groups.filter((g) => g.point).length, pointsOutsidePlace: pointsIgnored },
    sourceJoin: {
      lot_in_layer: results.filter((r) => r.sourceJoin === 'lot_in_layer').length,
      lot_missing_from_layer: weakBand.lotMissingFromLayer,
      no_lot_in_source: weakBand.noLotInSource,
    },
    headline: {
      answered: answered.length,
      failed: results.length - answered.length,
      checked: checked.length,
      right: right.length,
      wrong: wrong.length,
      unverifiable: answered.length - checked.length,
      shareRight: share(right.length, checked.length),
    },
    agreement: {
      sourceJoin: rate(
        answered.filter((r) => r.sourceJoin === 'lot_in_layer' && r.sourceLots.includes(r.answeredLot!)).length,
        answered.filter((r) => r.sourceJoin === 'lot_in_layer').length,
      ),
      pointInLot: rate(answered.filter((r) => r.pointInLot === true).length, answered.filter((r) => r.pointInLot !== null).length),
      sourceLotContainsPoint: rate(srcPointAgree, srcPointChecked),
    },
    idVsPoint: { checked: srcPointChecked, disagree: srcPointChecked - srcPointAgree, examples: idVsPointExamples },
    outsideBoundary,
    byMatchType,
    calibration,
    heldOut: { heldOut: heldOut.length, failed: heldOut.filter((h) => h === null).length, rows: heldRows },
    weakBand,
    worstDisagreements: worst,
    missed: { count: missedAll.length, examples: missedAll.slice(0, WORST_LISTED) },
    snapshotCrossCheck,
    vintages: vintagesOf(place),
  };
  return {
    auditVersion: AUDIT_VERSION,
    slug,
    placeId,
    name: `${place.name}, ${place.region}`,
    generatedAt: ctx.clock.now().toISOString(),
    durationMs: Date.now() - started,
    sourceDigest: imp.digest,
    importedAt: new Date(imp.imported_at).toISOString(),
    resultDigest: digestOf(String(AUDIT_VERSION), canonicalJson(body)),
    method:
      'Every distinct full address of the address table, written "<address>, <place>, <region>", through parseAddress and geocodeInPlace (the calls getFeasibilitySnapshot makes). ' +
      "An answer is right when its lot is one of the source's own lots for that address (when that lot is in the parcel layer), else when the address point lies in the answered lot; otherwise it cannot be checked. " +
      'Confidence bands are [min, max); the top band includes 1.',
    ...body,
    heldOut: { generatedAt: ctx.clock.now().toISOString(), ...body.heldOut },
  };
}

function vintagesOf(place: PlaceRecord): PlaceAudit['vintages'] {
  return place.layers.map((l) => ({ layer: l.layer, name: l.name, vintage: l.vintage }));
}

/** A place's parcels whose box holds the point, asked as a box of no size ($2, boxLiteral), which the box index serves. */
export const LOTS_AT_POINT_IN_PLACE_SQL = `SELECT parcel_ext_id, geom FROM parcels WHERE place_id = $1 AND bbox @> $2::box ORDER BY parcel_ext_id`;

async function lotContaining(q: Queryable, placeId: string, p: Position): Promise<string | null> {
  const rows = await q.query<{ parcel_ext_id: string; geom: unknown }>(LOTS_AT_POINT_IN_PLACE_SQL, [placeId, boxLiteral([p[0], p[1], p[0], p[1]])]);
  for (const r of rows) {
    const mp = (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords;
    if (pointInMultiPolygon(p, mp)) return r.parcel_ext_id;
  }
  return null;
}

/** Stores the audit as the place's latest (one row per place). */
export async function savePlaceAudit(ctx: Pick<AppContext, 'db' | 'caches'>, a: PlaceAudit): Promise<void> {
  await ctx.db.query(
    `INSERT INTO place_audits (place_id, source_digest, generated_at, report) VALUES ($1, $2, $3, $4::json)
     ON CONFLICT (place_id) DO UPDATE SET source_digest = EXCLUDED.source_digest, generated_at = EXCLUDED.generated_at, report = EXCLUDED.report`,
    [a.placeId, a.sourceDigest ?? '', a.generatedAt, JSON.stringify(a)],
  );
  forgetPlaceCalibration(ctx, a.placeId);
}

/** The latest stored audit of every place, by place id. */
export async function loadPlaceAudits(q: Queryable): Promise<Map<string, PlaceAudit>> {
  const rows = await q.query<{ place_id: string; report: PlaceAudit | string }>('SELECT place_id, report FROM place_audits');
  return new Map(rows.map((r) => [r.place_id, typeof r.report === 'string' ? (JSON.parse(r.report) as PlaceAudit) : r.report]));
}

/** Audits and stores; a place without an address table gets an audit that says so. */
export async function auditAndSave(ctx: AppContext, slug: string, opts: AuditOptions = {}): Promise<PlaceAudit> {
  const a = await auditPlace(ctx, slug, opts);
  await savePlaceAudit(ctx, a);
  return a;
}

/**
 * The import's hook: audit the place just imported (or, after an unchanged import, when no audit of
 * these sources is stored). Failures are logged, never fail the import. `background` returns at once.
 */
export async function auditAfterImport(
  ctx: AppContext,
  slug: string,
  placeId: string,
  sourceDigest: string,
  mode: 'await' | 'background' | 'off',
  onProgress?: (msg: string) => void,
  always = false,
): Promise<void> {
  if (mode === 'off') return;
  const run = async () => {
    if (!always) {
      const [have] = await ctx.db.query<{ source_digest: string; v: string | null }>(`SELECT source_digest, report->>'auditVersion' AS v FROM place_audits WHERE place_id = $1`, [placeId]);
      if (have && have.source_digest === sourceDigest && Number(have.v) === AUDIT_VERSION) return;
    }
    // In the background the audit gives way to requests now and then (one PGlite connection is shared).
    const a = await auditAndSave(ctx, slug, mode === 'background' ? { onProgress, pause: giveWayToRequests(ctx) } : { onProgress });
    onProgress?.(`${slug}: audit: ${auditSummaryLine(a)} (${(a.durationMs / 1000).toFixed(1)} s)`);
  };
  const guarded = run().catch((err: unknown) => ctx.logger.warn({ place: slug, err: (err as Error).message }, 'place audit failed; the import stands'));
  if (mode === 'await') await guarded;
}

/**
 * Audits the named places one after the other without being awaited (start-up): each gives way to
 * requests every 100 addresses; a place whose stored audit already describes its import is skipped.
 * Failures (the database closed at shutdown) are logged, never thrown.
 */
export async function auditInBackground(ctx: AppContext, slugs: string[], onProgress?: (msg: string) => void): Promise<void> {
  try {
    for (const slug of slugs) {
      const [row] = await ctx.db.query<{ digest: string | null; audited: string | null; v: string | null }>(
        `SELECT p.import_report->>'sourceDigest' AS digest, a.source_digest AS audited, a.report->>'auditVersion' AS v
           FROM places p LEFT JOIN place_audits a ON a.place_id = p.place_id WHERE p.slug = $1 AND p.imported_at IS NOT NULL`,
        [slug],
      );
      if (!row || (row.audited === row.digest && Number(row.v) === AUDIT_VERSION)) continue;
      const a = await auditAndSave(ctx, slug, { onProgress, pause: giveWayToRequests(ctx) });
      onProgress?.(`${slug}: audit: ${auditSummaryLine(a)} (${(a.durationMs / 1000).toFixed(1)} s)`);
    }
  } catch (err) {
    ctx.logger.warn({ places: slugs, err: (err as Error).message }, 'place audit stopped; the imports stand (`siteline data audit <place>` makes one)');
  }
}

const pct = (x: number | null, digits = 2) => (x === null ? 'n/a' : `${(x * 100).toFixed(digits)} %`);
const num = (x: number) => x.toLocaleString('en-US');

export function auditSummaryLine(a: PlaceAudit): string {
  if (a.scope.distinctAddresses === 0) return 'no address table, nothing to audit';
  const h = a.headline;
  return `${num(h.right)} of ${num(h.checked)} checked answers on the right lot (${pct(h.shareRight)}), ${num(h.unverifiable)} answered but not checkable, ${num(h.failed)} not answered, of ${num(a.scope.audited)} addresses`;
}

/** The audit as text for a terminal. */
export function formatPlaceAudit(a: PlaceAudit): string {
  const L: string[] = [];
  L.push(`Audit ${a.slug} (${a.name}), ${a.generatedAt} in ${(a.durationMs / 1000).toFixed(1)} s; import ${a.importedAt ?? '?'} (sources ${(a.sourceDigest ?? '').slice(0, 16)}), result digest ${a.resultDigest.slice(0, 16)}`);
  if (a.scope.distinctAddresses === 0) {
    L.push('  This place has no address table: nothing to audit. Its addresses cannot be answered from a table of its own.');
  } else {
    const s = a.scope;
    L.push(`  ${num(s.addressRows)} address rows, ${num(s.distinctAddresses)} distinct addresses${s.sampled ? `, a sample of ${num(s.audited)} audited` : ', all audited'}; ${num(s.withPoint)} with an address point`);
    L.push(`  source join: ${num(a.sourceJoin.lot_in_layer)} with their lot in the parcel layer, ${num(a.sourceJoin.lot_missing_from_layer)} whose lot is missing from it, ${num(a.sourceJoin.no_lot_in_source)} with no lot in the source`);
    L.push(`  result: ${auditSummaryLine(a)}`);
    const r = (x: Rate) => (x.rate === null ? 'n/a (nothing to check)' : `${num(x.agree)} of ${num(x.checked)} = ${pct(x.rate)}`);
    L.push(`  agreement with the source's own lot     ${r(a.agreement.sourceJoin)}`);
    L.push(`  address point inside the answered lot  ${r(a.agreement.pointInLot)}`);
    L.push(`  source's lot contains its point        ${r(a.agreement.sourceLotContainsPoint)}`);
    if (a.idVsPoint) {
      const iv = a.idVsPoint;
      L.push(`  town's lot id vs its address point     ${iv.checked ? `${num(iv.disagree)} of ${num(iv.checked)} disagree${iv.examples.length ? ` (e.g. ${iv.examples.slice(0, 3).map((e) => `${e.address}: id ${e.ownLots.join('/')}, point in ${e.pointLot ?? 'no lot'}`).join('; ')})` : ''}` : 'n/a (no lot id column, or no points)'}`);
    }
    if (a.outsideBoundary) {
      const ob = a.outsideBoundary;
      L.push(`  address points outside the boundary    ${ob.boundary ? `${num(ob.outside)} of ${num(ob.withPoint)}${ob.examples.length ? ` (e.g. ${ob.examples.slice(0, 3).join('; ')})` : ''}` : 'n/a (the place has no boundary layer)'}`);
    }
    L.push('');
    L.push('  match type             addresses  checked    right  share right  mean conf.');
    for (const m of a.byMatchType) {
      L.push(`  ${m.matchType.padEnd(22)} ${String(m.addresses).padStart(9)} ${String(m.checked).padStart(8)} ${String(m.right).padStart(8)} ${pct(m.shareRight).padStart(12)} ${(m.meanConfidence?.toFixed(3) ?? '-').padStart(11)}`);
    }
    L.push('');
    L.push('  confidence  answered  checked    right  share right  mean conf.  not checkable');
    for (const c of a.calibration) {
      L.push(`  ${c.band.padEnd(10)} ${String(c.answered).padStart(9)} ${String(c.checked).padStart(8)} ${String(c.right).padStart(8)} ${pct(c.shareRight).padStart(12)} ${(c.meanConfidence?.toFixed(3) ?? '-').padStart(11)} ${String(c.unverifiable).padStart(14)}`);
    }
    L.push('');
    const w = a.weakBand;
    L.push(`  weak band: ${w.note}`);
    if (w.addresses) {
      L.push(`    ${num(w.answered)} answered, ${num(w.failed)} not answered; ${w.byMatchType.map((m) => `${m.matchType} ${m.addresses}${m.meanConfidence !== null ? ` (mean ${m.meanConfidence.toFixed(2)})` : ''}`).join(', ')}`);
      L.push(`    by confidence: ${w.byBand.filter((b) => b.answered).map((b) => `${b.band} ${b.answered}`).join(', ') || 'none answered'}`);
    }
    L.push('');
    L.push(`  worst disagreements (${a.headline.wrong} wrong in all${a.worstDisagreements.length < a.headline.wrong ? `, ${a.worstDisagreements.length} listed` : ''}):`);
    for (const d of a.worstDisagreements) {
      L.push(`    ${d.address}: lot ${d.answeredLot} by ${d.matchType} at ${d.confidence}; the source says ${d.sourceLots.join(', ') || (d.pointLot ? `the point is in ${d.pointLot}` : 'the point is in no lot')}${d.distanceM != null ? ` (${d.distanceM} m away)` : ''}`);
    }
    if (a.missed.count) {
      L.push(`  not answered although the source has the lot: ${a.missed.count}`);
      for (const d of a.missed.examples.slice(0, 5)) L.push(`    ${d.address} (lot ${d.sourceLots.join(', ')}): ${d.reason ?? ''}`);
    }
    if (a.snapshotCrossCheck) L.push(`  cross-check through getFeasibilitySnapshot: ${a.snapshotCrossCheck.sameLot} of ${a.snapshotCrossCheck.checked} the same lot`);
  }
  L.push('  data vintages:');
  for (const v of a.vintages) L.push(`    ${v.layer.padEnd(18)} ${v.vintage.padEnd(28)} ${v.name}`);
  return L.join('\n') + '\n';
}
