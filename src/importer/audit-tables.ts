// The accuracy audit's verdicts and tables (src/importer/audit-place.ts): each answer right, wrong or
// not checkable against the source's own lot or the address point; the source's lot id against its
// own geometry; the tables by match type and by confidence band; the held-out calibration rows; the
// weak band (addresses the source cannot check); the worst disagreements.
import type { Queryable } from '../db/database.ts';
import { distanceM, pointInMultiPolygon, type Position } from '../core/geo/primitives.ts';
import type { MatchType } from '../geocoder/geocode.ts';
import type { HeldOutRow } from '../geocoder/calibration.ts';
import { ASSESSOR_FAR_BAND } from '../geocoder/lot-fronts-street.ts';
import { SIBLING_BAND, UNLISTED_BAND } from '../geocoder/geocode.ts';
import { lotContaining, type AddressGroup, type HeldOutAnswer, type PlaceLots } from './audit-addresses.ts';
import {
  bandLabel,
  bandOf,
  CONFIDENCE_BANDS,
  mean,
  share,
  WORST_LISTED,
  type AuditedAddress,
  type CalibrationRow,
  type MatchTypeRow,
  type PlaceAudit,
  type Verdict,
} from './audit-report.ts';

const TYPE_ORDER: (MatchType | 'failed')[] = ['address_table', 'assessor_table', 'street_interpolation', 'failed'];

/** Right when the answered lot is one of the source's own (its lot in the layer), else when the address point lies in it. */
export function verdictOf(r: AuditedAddress): Verdict {
  if (!r.answeredLot) return 'unverifiable';
  if (r.sourceJoin === 'lot_in_layer') return r.sourceLots.includes(r.answeredLot) ? 'right' : 'wrong';
  if (r.pointInLot !== null) return r.pointInLot ? 'right' : 'wrong';
  return 'unverifiable';
}

/** The source's own lot against the address point: the source's id against its geometry (no geocoder). */
export async function sourceLotsAgainstPoints(
  q: Queryable,
  placeId: string,
  groups: AddressGroup[],
  results: AuditedAddress[],
  lots: PlaceLots,
  pause?: () => Promise<void>,
): Promise<{ checked: number; agree: number; examples: PlaceAudit['idVsPoint']['examples'] }> {
  let checked = 0;
  let agree = 0;
  const examples: PlaceAudit['idVsPoint']['examples'] = [];
  for (const [i, g] of groups.entries()) {
    const r = results[i]!;
    if (!g.point || r.sourceLots.length === 0) continue;
    if (pause && i % 20 === 0) await pause();
    checked++;
    let agrees = false;
    for (const id of r.sourceLots) {
      const geom = await lots.geomOf(id);
      if (geom && pointInMultiPolygon(g.point, geom)) {
        agree++;
        agrees = true;
        break;
      }
    }
    if (!agrees && examples.length < 10)
      examples.push({ address: g.address, ownLots: r.sourceLots, pointLot: await lotContaining(q, placeId, g.point), answeredLot: r.answeredLot });
  }
  return { checked, agree, examples };
}

export function byMatchTypeTable(results: AuditedAddress[], verdicts: Map<AuditedAddress, Verdict>): MatchTypeRow[] {
  return TYPE_ORDER.map((t) => {
    const rs = results.filter((r) => (r.matchType ?? 'failed') === t);
    const ck = rs.filter((r) => verdicts.get(r) !== 'unverifiable');
    const ok = ck.filter((r) => verdicts.get(r) === 'right').length;
    return {
      matchType: t,
      addresses: rs.length,
      checked: ck.length,
      right: ok,
      shareRight: share(ok, ck.length),
      meanConfidence: mean(rs.flatMap((r) => (r.confidence === null ? [] : [r.confidence]))),
    };
  }).filter((row) => row.addresses > 0);
}

/** Share right per confidence band, beside the band's mean confidence: well calibrated when they are close. */
export function calibrationTable(answered: AuditedAddress[], verdicts: Map<AuditedAddress, Verdict>): CalibrationRow[] {
  return CONFIDENCE_BANDS.map((b) => {
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
}

type Held = NonNullable<HeldOutAnswer>;

/** One row per confidence band of the answers (bands with none left out). */
function bandRows(answers: Held[], matchType: HeldOutRow['matchType'], population?: HeldOutRow['population']): HeldOutRow[] {
  return CONFIDENCE_BANDS.map((b) => {
    const rs = answers.filter((h) => bandOf(h.confidence) === b);
    const ok = rs.filter((h) => h.right).length;
    return {
      matchType,
      band: bandLabel(b),
      min: b[0],
      max: b[1],
      answered: rs.length,
      right: ok,
      shareRight: share(ok, rs.length),
      meanConfidence: mean(rs.map((h) => h.confidence)),
      ...(population ? { population } : {}),
    };
  }).filter((row) => row.answered > 0);
}

/**
 * The held-out answers by stand-in method and band: the assessor's listings on lots off the named street
 * in a band of their own; the answers on another suffix's address-table row in rows of their own (for an
 * address whose lot the table gives another address too: held out from a lot it names once, the row is
 * another lot by construction, which says nothing of a missing address on a lot the table knows); and the
 * interpolations of the addresses held out of both tables (`heldOutOfBoth`) in rows of their own. The
 * population of an interpolation is the hold-out's, not the answer's flag: held out of the address table
 * alone every interpolated address is one the geocoder sees listed nowhere, but the assessor's table did
 * not list it either in the data, as in use an address whose row lacks only its lot.
 */
export function heldOutTable(heldOut: HeldOutAnswer[], heldOutOfBoth: HeldOutAnswer[] = []): HeldOutRow[] {
  const held = heldOut.filter((h): h is Held => h !== null);
  const heldRows: HeldOutRow[] = [
    ...bandRows(
      held.filter((h) => h.matchType === 'assessor_table' && h.band !== ASSESSOR_FAR_BAND),
      'assessor_table',
    ),
    ...bandRows(
      held.filter((h) => h.matchType === 'street_interpolation'),
      'street_interpolation',
    ),
  ];
  // Assessor's listings on lots that do not front the named street: one band of their own, whatever their score.
  const far = held.filter((h) => h.band === ASSESSOR_FAR_BAND);
  if (far.length) {
    const ok = far.filter((h) => h.right).length;
    heldRows.push({
      matchType: 'assessor_table',
      band: ASSESSOR_FAR_BAND,
      min: 0,
      max: 1,
      answered: far.length,
      right: ok,
      shareRight: share(ok, far.length),
      meanConfidence: mean(far.map((h) => h.confidence)),
    });
  }
  // Another suffix's row, for addresses whose lot the table still gives through another address (lotsWithSeveralAddresses).
  heldRows.push(
    ...bandRows(
      held.filter((h) => h.matchType === 'address_table' && h.band === SIBLING_BAND && h.lotShared),
      'address_table',
      SIBLING_BAND,
    ),
  );
  const both = heldOutOfBoth.filter((h): h is Held => h !== null && h.matchType === 'street_interpolation');
  heldRows.push(...bandRows(both, 'street_interpolation', UNLISTED_BAND));
  return heldRows;
}

/** Addresses whose lot is missing from the parcel layer or absent from the source: what they got, and what their points say. */
export function weakBandOf(results: AuditedAddress[]): PlaceAudit['weakBand'] {
  const weak = results.filter((r) => r.sourceJoin !== 'lot_in_layer');
  const weakAnswered = weak.filter((r) => r.answeredLot);
  const weakByPoint = weakAnswered.filter((r) => r.pointInLot !== null);
  return {
    addresses: weak.length,
    lotMissingFromLayer: weak.filter((r) => r.sourceJoin === 'lot_missing_from_layer').length,
    noLotInSource: weak.filter((r) => r.sourceJoin === 'no_lot_in_source').length,
    answered: weakAnswered.length,
    failed: weak.length - weakAnswered.length,
    checkedByPoint: weakByPoint.length,
    rightByPoint: weakByPoint.filter((r) => r.pointInLot).length,
    byMatchType: TYPE_ORDER.map((t) => {
      const rs = weak.filter((r) => (r.matchType ?? 'failed') === t);
      return { matchType: t, addresses: rs.length, meanConfidence: mean(rs.flatMap((r) => (r.confidence === null ? [] : [r.confidence]))) };
    }).filter((x) => x.addresses > 0),
    byBand: CONFIDENCE_BANDS.map((b) => ({ band: bandLabel(b), answered: weakAnswered.filter((r) => bandOf(r.confidence!) === b).length })),
    note:
      weak.length === 0
        ? 'Every address has a lot of the parcel layer in the source.'
        : `${weak.length} address(es) have no lot of the parcel layer in the source (the lot is newer than the parcel layer, or the source gives none). ` +
          `Their answers come from other tables or from interpolation and cannot be checked against the source's join` +
          `${weakByPoint.length ? `; ${weakByPoint.length} were checked by their address point` : '; with no address points, they are not checked at all'}.`,
  };
}

/** Worst first: the most confident wrong answers, then the farthest from the source's lot; each told the lot its point lies in. */
export async function worstDisagreements(
  q: Queryable,
  placeId: string,
  groups: AddressGroup[],
  results: AuditedAddress[],
  wrong: AuditedAddress[],
  inside: Map<string, Position>,
): Promise<AuditedAddress[]> {
  for (const r of wrong) {
    const a = inside.get(r.answeredLot!);
    const dists = r.sourceLots
      .map((id) => inside.get(id))
      .filter((p): p is Position => !!p && !!a)
      .map((p) => distanceM(a!, p));
    r.distanceM = dists.length ? Math.round(Math.min(...dists)) : null;
  }
  const worst = [...wrong]
    .sort((a, b) => b.confidence! - a.confidence! || (b.distanceM ?? 0) - (a.distanceM ?? 0) || (a.address < b.address ? -1 : 1))
    .slice(0, WORST_LISTED);
  for (const r of worst) {
    const g = groups[results.indexOf(r)]!;
    if (g.point) r.pointLot = await lotContaining(q, placeId, g.point);
  }
  return worst;
}
