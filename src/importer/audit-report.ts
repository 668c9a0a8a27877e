// What the accuracy audit of a place reports (src/importer/audit-place.ts runs it): the shape stored in
// place_audits and served at /coverage/<slug>/audit.json, the confidence bands it counts by, and the
// report as text for a terminal.
import type { MatchType } from '../geocoder/geocode.ts';
import { MIN_CALIBRATION_SAMPLE, type HeldOutRow, type PlaceCalibration } from '../geocoder/calibration.ts';
import { NOT_FRONTING_CONFIDENCE } from '../geocoder/lot-fronts-street.ts';

/** Bumped when the audit's method or shape changes. */
export const AUDIT_VERSION = 5; // 2: the town's own lot id as reference (source_lot_id), id-vs-point, outside the boundary; 3: the held-out calibration table; 4: its assessor_far band; 5: its address_sibling and unlisted rows
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
  heldOut: PlaceCalibration & { failed: number; failedOfBoth?: number };
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
  snapshotCrossCheck: {
    checked: number;
    sameLot: number;
    differences: { address: string; audited: string | null; snapshot: string | null; error?: string }[];
  } | null;
  vintages: { layer: string; name: string; vintage: string }[];
}

export const rate = (agree: number, checked: number): Rate => ({ checked, agree, rate: checked === 0 ? null : agree / checked });
export const share = (n: number, d: number): number | null => (d === 0 ? null : n / d);
export const mean = (xs: number[]): number | null => (xs.length === 0 ? null : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000);
export const bandLabel = ([min, max]: readonly [number, number]) => `${min.toFixed(2)}-${max.toFixed(2)}`;
export function bandOf(c: number): readonly [number, number] {
  return CONFIDENCE_BANDS.find(([min]) => c >= min) ?? CONFIDENCE_BANDS[CONFIDENCE_BANDS.length - 1]!;
}

const pct = (x: number | null, digits = 2) => (x === null ? 'n/a' : `${(x * 100).toFixed(digits)} %`);
const num = (x: number) => x.toLocaleString('en-US');

export function auditSummaryLine(a: PlaceAudit): string {
  if (a.scope.distinctAddresses === 0) return 'no address table, nothing to audit';
  const h = a.headline;
  return `${num(h.right)} of ${num(h.checked)} checked answers on the right lot (${pct(h.shareRight)}), ${num(h.unverifiable)} answered but not checkable, ${num(h.failed)} not answered, of ${num(a.scope.audited)} addresses`;
}

/** What a held-out row measures, in a few words: the method, and its population when not the plain one. */
export function heldOutRowLabel(r: HeldOutRow): string {
  if (r.band === 'assessor_far') return "assessor's table, lot off the named street";
  if (r.population === 'address_sibling') return "address table, another suffix's row";
  if (r.population === 'unlisted') return 'interpolation, neither table lists it';
  return r.matchType === 'assessor_table' ? "assessor's table" : r.matchType === 'street_interpolation' ? 'interpolation' : r.matchType;
}

/** The held-out table (the calibration the answers use): band, answered, right, share right, the confidence answered. */
function heldOutLines(a: PlaceAudit): string[] {
  const h = a.heldOut;
  if (!h?.rows?.length) return ["  held out: no calibration rows (answers other than exact address-table rows carry their methods' own scores)"];
  const L = [
    `  held out of the address table: ${num(h.heldOut)} addresses (${num(h.failed)} not answered)${h.heldOutOfBoth !== undefined ? `; of the assessor's table too: ${num(h.heldOutOfBoth)} (${num(h.failedOfBoth ?? 0)} not answered)` : ''}`,
    '  method                                     own score  answered    right  share right  confidence answered',
  ];
  for (const r of h.rows) {
    const measured = r.answered >= MIN_CALIBRATION_SAMPLE && r.shareRight !== null;
    const share2 = measured ? Math.round(r.shareRight! * 100) / 100 : null;
    // The assessor_far band is a cap the audit can lower, never raise (src/geocoder/calibration.ts).
    const answeredAt =
      r.band === 'assessor_far'
        ? share2 !== null && share2 < NOT_FRONTING_CONFIDENCE
          ? share2.toFixed(2)
          : `${NOT_FRONTING_CONFIDENCE} (the cap)`
        : share2 !== null
          ? share2.toFixed(2)
          : 'own score (too few)';
    L.push(
      `  ${heldOutRowLabel(r).padEnd(42)} ${(r.band === 'assessor_far' ? 'any' : r.band).padStart(9)} ${String(r.answered).padStart(9)} ${String(r.right).padStart(8)} ${pct(r.shareRight, 1).padStart(12)}  ${answeredAt}`,
    );
  }
  return L;
}

/** The audit as text for a terminal. */
export function formatPlaceAudit(a: PlaceAudit): string {
  const L: string[] = [];
  L.push(
    `Audit ${a.slug} (${a.name}), ${a.generatedAt} in ${(a.durationMs / 1000).toFixed(1)} s; import ${a.importedAt ?? '?'} (sources ${(a.sourceDigest ?? '').slice(0, 16)}), result digest ${a.resultDigest.slice(0, 16)}`,
  );
  if (a.scope.distinctAddresses === 0) {
    L.push('  This place has no address table: nothing to audit. Its addresses cannot be answered from a table of its own.');
  } else {
    const s = a.scope;
    L.push(
      `  ${num(s.addressRows)} address rows, ${num(s.distinctAddresses)} distinct addresses${s.sampled ? `, a sample of ${num(s.audited)} audited` : ', all audited'}; ${num(s.withPoint)} with an address point`,
    );
    L.push(
      `  source join: ${num(a.sourceJoin.lot_in_layer)} with their lot in the parcel layer, ${num(a.sourceJoin.lot_missing_from_layer)} whose lot is missing from it, ${num(a.sourceJoin.no_lot_in_source)} with no lot in the source`,
    );
    L.push(`  result: ${auditSummaryLine(a)}`);
    const r = (x: Rate) => (x.rate === null ? 'n/a (nothing to check)' : `${num(x.agree)} of ${num(x.checked)} = ${pct(x.rate)}`);
    L.push(`  agreement with the source's own lot     ${r(a.agreement.sourceJoin)}`);
    L.push(`  address point inside the answered lot  ${r(a.agreement.pointInLot)}`);
    L.push(`  source's lot contains its point        ${r(a.agreement.sourceLotContainsPoint)}`);
    if (a.idVsPoint) {
      const iv = a.idVsPoint;
      L.push(
        `  town's lot id vs its address point     ${
          iv.checked
            ? `${num(iv.disagree)} of ${num(iv.checked)} disagree${
                iv.examples.length
                  ? ` (e.g. ${iv.examples
                      .slice(0, 3)
                      .map((e) => `${e.address}: id ${e.ownLots.join('/')}, point in ${e.pointLot ?? 'no lot'}`)
                      .join('; ')})`
                  : ''
              }`
            : 'n/a (no lot id column, or no points)'
        }`,
      );
    }
    if (a.outsideBoundary) {
      const ob = a.outsideBoundary;
      L.push(
        `  address points outside the boundary    ${ob.boundary ? `${num(ob.outside)} of ${num(ob.withPoint)}${ob.examples.length ? ` (e.g. ${ob.examples.slice(0, 3).join('; ')})` : ''}` : 'n/a (the place has no boundary layer)'}`,
      );
    }
    L.push('');
    L.push('  match type             addresses  checked    right  share right  mean conf.');
    for (const m of a.byMatchType) {
      L.push(
        `  ${m.matchType.padEnd(22)} ${String(m.addresses).padStart(9)} ${String(m.checked).padStart(8)} ${String(m.right).padStart(8)} ${pct(m.shareRight).padStart(12)} ${(m.meanConfidence?.toFixed(3) ?? '-').padStart(11)}`,
      );
    }
    L.push('');
    L.push('  confidence  answered  checked    right  share right  mean conf.  not checkable');
    for (const c of a.calibration) {
      L.push(
        `  ${c.band.padEnd(10)} ${String(c.answered).padStart(9)} ${String(c.checked).padStart(8)} ${String(c.right).padStart(8)} ${pct(c.shareRight).padStart(12)} ${(c.meanConfidence?.toFixed(3) ?? '-').padStart(11)} ${String(c.unverifiable).padStart(14)}`,
      );
    }
    L.push('');
    L.push(...heldOutLines(a));
    L.push('');
    const w = a.weakBand;
    L.push(`  weak band: ${w.note}`);
    if (w.addresses) {
      L.push(
        `    ${num(w.answered)} answered, ${num(w.failed)} not answered; ${w.byMatchType.map((m) => `${m.matchType} ${m.addresses}${m.meanConfidence !== null ? ` (mean ${m.meanConfidence.toFixed(2)})` : ''}`).join(', ')}`,
      );
      L.push(
        `    by confidence: ${
          w.byBand
            .filter((b) => b.answered)
            .map((b) => `${b.band} ${b.answered}`)
            .join(', ') || 'none answered'
        }`,
      );
    }
    L.push('');
    L.push(
      `  worst disagreements (${a.headline.wrong} wrong in all${a.worstDisagreements.length < a.headline.wrong ? `, ${a.worstDisagreements.length} listed` : ''}):`,
    );
    for (const d of a.worstDisagreements) {
      L.push(
        `    ${d.address}: lot ${d.answeredLot} by ${d.matchType} at ${d.confidence}; the source says ${d.sourceLots.join(', ') || (d.pointLot ? `the point is in ${d.pointLot}` : 'the point is in no lot')}${d.distanceM != null ? ` (${d.distanceM} m away)` : ''}`,
      );
    }
    if (a.missed.count) {
      L.push(`  not answered although the source has the lot: ${a.missed.count}`);
      for (const d of a.missed.examples.slice(0, 5)) L.push(`    ${d.address} (lot ${d.sourceLots.join(', ')}): ${d.reason ?? ''}`);
    }
    if (a.snapshotCrossCheck)
      L.push(`  cross-check through getFeasibilitySnapshot: ${a.snapshotCrossCheck.sameLot} of ${a.snapshotCrossCheck.checked} the same lot`);
  }
  L.push('  data vintages:');
  for (const v of a.vintages) L.push(`    ${v.layer.padEnd(18)} ${v.vintage.padEnd(28)} ${v.name}`);
  return L.join('\n') + '\n';
}
