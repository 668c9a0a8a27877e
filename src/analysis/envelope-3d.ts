// The building envelope as a solid: the buildable footprint (the lot less its front, side and rear
// yards, each placed on the edges the lot facts say face the street, the sides or the rear) raised to
// the maximum height. Drawn only from values a person may rely on as the bylaw states them (cited,
// cited_conditional, derived_from_cited; a yard the bylaw does not limit counts as 0 ft). Anything else
// (unknown, indicative or unverified, an assumption, or a lot whose yards cannot be placed honestly)
// gives no solid, with the values and reasons named. Two things a building type's table may add
// (Somerville): a minimum sum of the side setbacks larger than twice the minimum cuts each side at half
// the sum (the building centred); and a height limited in storeys with no height in feet known (Somerville's
// NR tables state none) gives the footprint drawn on the ground, not raised, with the storeys stated (a
// height in feet is never made up from storeys). Domain only: the pages draw what this returns.
import type { MultiPolygon } from 'geojson';
import { FT_PER_M, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import type { ValueStatus } from '../core/statuses.ts';
import { VALUE_STATUS_WORDS, valueWords, type WordedValue } from '../core/value-words.ts';
import { buildableFootprint } from './buildable-footprint.ts';

/** The envelope members the solid needs, in the order they are stated. */
export const ENVELOPE_3D_MEMBERS = ['maxHeightFt', 'minFrontYardFt', 'minSideYardFt', 'minRearYardFt'] as const;
export type Envelope3dMember = (typeof ENVELOPE_3D_MEMBERS)[number];

/** How each needed value is named in a sentence ("the rear setback is ..."). */
const ENVELOPE_3D_LABELS: Record<Envelope3dMember, string> = {
  maxHeightFt: 'the maximum height',
  minFrontYardFt: 'the front setback',
  minSideYardFt: 'the side setback',
  minRearYardFt: 'the rear setback',
};

/**
 * Statuses the solid is drawn from: values read from the bylaw (or computed from such values). An
 * unverified_default or defaulted value is indicative: the feasibility analysis may compute an
 * indicative figure from it, but a drawing would read as a known shape, so the solid is not drawn.
 */
const DRAWABLE_STATUSES: readonly ValueStatus[] = ['cited', 'cited_conditional', 'derived_from_cited'];

/** A needed value as the envelope gives it (a snapshot value or an analysis standard). */
export interface Envelope3dValue extends WordedValue {
  condition?: string;
}

/** Values the solid reads when the envelope has them: the storeys (a table with no height in feet) and the sum of the side setbacks. */
export const ENVELOPE_3D_OPTIONAL = ['maxHeightStoreys', 'minSideYardSumFt'] as const;
export type Envelope3dOptional = (typeof ENVELOPE_3D_OPTIONAL)[number];

export interface Envelope3dInput {
  /** The lot polygon(s) (lon/lat). Several touching lots are combined. */
  lots: MultiPolygonCoords[];
  /** Centreline pieces of the lot's front street near it (lon/lat): the front lot line is the lot edge facing them. */
  frontStreetLines: Position[][];
  /** From the lot facts; null when no front was found. */
  cornerLot: boolean | null;
  /** From the lot facts when the caller has them (a lot fronting two streets on opposite sides). */
  throughLot?: boolean | null;
  values: Partial<Record<Envelope3dMember | Envelope3dOptional, Envelope3dValue | undefined>>;
}

/** A value used, with its status in words (the one wording every surface shows). */
export interface Envelope3dBasis {
  member: Envelope3dMember | Envelope3dOptional;
  label: string;
  value: number | null;
  unit: string;
  status: ValueStatus;
  /** `says — status`, from value-words. */
  words: string;
  condition?: string;
  /** How the solid uses it ("0 ft: the bylaw sets no limit"). */
  usedAs: string;
}

/** A needed value the solid cannot be drawn from, and why, in words. */
export interface Envelope3dUnknown {
  member: Envelope3dMember;
  label: string;
  status: ValueStatus;
  /** What the source says ("45 ft", "Unknown"), from value-words. */
  says: string;
  statusWords: string;
  reason: string;
}

export type Envelope3d =
  | {
      drawn: true;
      footprint: MultiPolygon;
      /** Null when the table limits the height in storeys only: the footprint is drawn on the ground (heightStoreys says the limit). */
      heightFt: number | null;
      heightM: number | null;
      heightStoreys?: number;
      areaSqft: number;
      basis: Envelope3dBasis[];
      /** How the yards were placed (front, side and rear edges). */
      placement: string;
    }
  | {
      drawn: false;
      /** Needed values that are not known well enough to draw (empty when the values are fine but the lot is not). */
      unknown: Envelope3dUnknown[];
      /** Why the lot's yards cannot be placed, when that is the reason (null otherwise). */
      geometry: string | null;
      /** The needed values that are fine, stated all the same. */
      basis: Envelope3dBasis[];
      /** One plain sentence: "No 3D envelope: the rear setback is unknown: not extracted from the bylaw." */
      statement: string;
    };

const r2 = (x: number) => Math.round(x * 100) / 100;

const INDICATIVE: readonly ValueStatus[] = ['unverified_default', 'defaulted'];

/** "the front setback and the rear setback are indicative, unverified, so they are not drawn as if known". */
function statusReason(labels: string[], status: ValueStatus): string {
  const many = labels.length > 1;
  const who = many ? `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}` : labels[0]!;
  return `${who} ${many ? 'are' : 'is'} ${VALUE_STATUS_WORDS[status]}${INDICATIVE.includes(status) ? `, so ${many ? 'they are' : 'it is'} not drawn as if known` : ''}`;
}

/** The reasons in one sentence's parts: values that share a status are named together, in member order. */
function reasonParts(unknown: Envelope3dUnknown[]): string[] {
  const parts: string[] = [];
  const grouped = new Map<ValueStatus, number>();
  const byStatus = new Map<ValueStatus, string[]>();
  for (const u of unknown) {
    if (u.reason !== statusReason([u.label], u.status)) {
      parts.push(u.reason);
      continue;
    }
    const labels = byStatus.get(u.status) ?? [];
    labels.push(u.label);
    byStatus.set(u.status, labels);
    if (!grouped.has(u.status)) {
      grouped.set(u.status, parts.length);
      parts.push('');
    }
  }
  for (const [status, at] of grouped) parts[at] = statusReason(byStatus.get(status)!, status);
  return parts;
}

function judge(member: Envelope3dMember, v: Envelope3dValue | undefined): { ok: Envelope3dBasis } | { no: Envelope3dUnknown } {
  const label = ENVELOPE_3D_LABELS[member];
  if (!v)
    return { no: { member, label, status: 'missing', says: 'Unknown', statusWords: VALUE_STATUS_WORDS.missing, reason: `${label} is not in the envelope` } };
  const words = valueWords(v);
  const isYard = member !== 'maxHeightFt';
  const base = { member, label, status: v.status, unit: 'ft', words: words.line, ...(v.condition ? { condition: v.condition } : {}) };
  if (v.status === 'no_limit_in_bylaw') {
    if (isYard) return { ok: { ...base, value: 0, usedAs: '0 ft: the bylaw sets no minimum' } };
    return {
      no: {
        member,
        label,
        status: v.status,
        says: words.says,
        statusWords: VALUE_STATUS_WORDS[v.status],
        reason: 'the bylaw sets no maximum height, so there is no height to raise the footprint to',
      },
    };
  }
  const n = typeof v.value === 'number' && Number.isFinite(v.value) ? v.value : null;
  if (!DRAWABLE_STATUSES.includes(v.status) || n === null || n < 0) {
    return { no: { member, label, status: v.status, says: words.says, statusWords: VALUE_STATUS_WORDS[v.status], reason: statusReason([label], v.status) } };
  }
  if (member === 'maxHeightFt' && n === 0)
    return {
      no: {
        member,
        label,
        status: v.status,
        says: words.says,
        statusWords: VALUE_STATUS_WORDS[v.status],
        reason: 'the maximum height is 0 ft: there is nothing to raise',
      },
    };
  return { ok: { ...base, value: n, usedAs: `${words.says}` } };
}

/** Why the yards cannot be placed on this lot (null when they can). */
function placementDoubt(input: Envelope3dInput): string | null {
  if (input.lots.length === 0 || input.lots.every((mp) => mp.length === 0)) return 'the lot has no polygon';
  if (input.cornerLot === null || input.frontStreetLines.length === 0)
    return 'no front street was found for the lot, so its front lot line (and so its rear) is not known';
  if (input.cornerLot)
    return 'it is a corner lot: which street line is its front, and so which edges take the street-side and rear yards, depends on how the bylaw defines the front of a corner lot, which is not encoded';
  if (input.throughLot) return 'it is a through lot (it fronts streets on opposite sides): whether its far side takes a rear or a front yard is not determined';
  return null;
}

/** Statuses that say a table states no such value at all (not a value unknown for this lot). */
const NOT_STATED: readonly ValueStatus[] = ['not_extracted', 'missing'];

/**
 * A height limited in storeys with no height in feet known (not_extracted: Somerville's NR tables state
 * none): the storeys, to state beside a footprint drawn on the ground. Null otherwise.
 */
function storeysOnly(input: Envelope3dInput): Envelope3dBasis | null {
  const ft = input.values.maxHeightFt;
  const st = input.values.maxHeightStoreys;
  if (!st || (ft && !NOT_STATED.includes(ft.status))) return null;
  if (!DRAWABLE_STATUSES.includes(st.status) || typeof st.value !== 'number' || !(st.value > 0)) return null;
  const words = valueWords(st);
  return {
    member: 'maxHeightStoreys',
    label: 'the maximum number of storeys',
    value: st.value,
    unit: 'storeys',
    status: st.status,
    words: words.line,
    ...(st.condition ? { condition: st.condition } : {}),
    usedAs: `${words.says}: with no height in feet known, the footprint is drawn on the ground, not raised`,
  };
}

/**
 * The side yard drawn: the minimum side setback, or half the minimum sum of the side setbacks where
 * that is more (the building centred between its side lot lines). An unknown sum keeps the side from
 * being drawn: it may bind.
 */
function sideWithSum(side: Envelope3dBasis, sum: Envelope3dValue | undefined): { ok: Envelope3dBasis; sum?: Envelope3dBasis } | { no: Envelope3dUnknown } {
  if (!sum) return { ok: side };
  const words = valueWords(sum);
  if (sum.status === 'no_limit_in_bylaw') return { ok: side };
  if (!DRAWABLE_STATUSES.includes(sum.status) || typeof sum.value !== 'number') {
    return {
      no: {
        member: 'minSideYardFt',
        label: 'the side setback',
        status: sum.status,
        says: words.says,
        statusWords: VALUE_STATUS_WORDS[sum.status],
        reason: `the side setbacks' minimum sum is ${VALUE_STATUS_WORDS[sum.status]}${INDICATIVE.includes(sum.status) ? ', so it is not drawn as if known' : ''}`,
      },
    };
  }
  const sumBasis: Envelope3dBasis = {
    member: 'minSideYardSumFt',
    label: 'the sum of the side setbacks',
    value: sum.value,
    unit: 'ft',
    status: sum.status,
    words: words.line,
    ...(sum.condition ? { condition: sum.condition } : {}),
    usedAs: words.says,
  };
  if (sum.value <= 2 * side.value!) return { ok: side, sum: sumBasis };
  const each = r2(sum.value / 2);
  return {
    ok: {
      ...side,
      value: each,
      usedAs: `${each} ft on each side: half the minimum sum of the side setbacks (${words.says}), which is more than twice the minimum (${side.usedAs}); drawn with the building centred`,
    },
    sum: { ...sumBasis, usedAs: `${words.says} (with ${side.usedAs} at least on each side)` },
  };
}

/** The envelope solid of a lot, or the named reasons it cannot be drawn. Pure: same input, same answer. */
export function envelope3d(input: Envelope3dInput): Envelope3d {
  const basis: Envelope3dBasis[] = [];
  const unknown: Envelope3dUnknown[] = [];
  const storeys = storeysOnly(input);
  for (const m of ENVELOPE_3D_MEMBERS) {
    if (m === 'maxHeightFt' && storeys) {
      basis.push(storeys);
      continue;
    }
    const j = judge(m, input.values[m]);
    if ('ok' in j && m === 'minSideYardFt') {
      const w = sideWithSum(j.ok, input.values.minSideYardSumFt);
      if ('no' in w) unknown.push(w.no);
      else basis.push(w.ok, ...(w.sum ? [w.sum] : []));
    } else if ('ok' in j) basis.push(j.ok);
    else unknown.push(j.no);
  }
  const geometryDoubt = placementDoubt(input);
  const refuse = (geometry: string | null): Envelope3d => {
    const parts = [...reasonParts(unknown), ...(geometry ? [`the yards cannot be placed: ${geometry}`] : [])];
    return { drawn: false, unknown, geometry, basis, statement: `No 3D envelope: ${parts.join('; ')}.` };
  };
  if (unknown.length || geometryDoubt) return refuse(geometryDoubt);
  const ft = (m: Envelope3dMember) => basis.find((b) => b.member === m)!.value!;
  const inset = buildableFootprint(input.lots, input.frontStreetLines, {
    frontFt: ft('minFrontYardFt'),
    sideFt: ft('minSideYardFt'),
    rearFt: ft('minRearYardFt'),
  });
  if (!inset.ok) return refuse(inset.reason);
  if (inset.areaSqft <= 0 || inset.footprint.length === 0) return refuse('the yards leave no buildable footprint on this lot');
  const heightFt = storeys ? null : ft('maxHeightFt');
  return {
    drawn: true,
    footprint: { type: 'MultiPolygon', coordinates: inset.footprint },
    heightFt,
    heightM: heightFt === null ? null : r2(heightFt / FT_PER_M),
    ...(storeys ? { heightStoreys: storeys.value! } : {}),
    areaSqft: inset.areaSqft,
    basis,
    placement: `Front setback on ${inset.frontEdges} edge(s) facing the front street (${inset.frontLineFt} ft of front lot line), side setback on ${inset.sideEdges}, rear setback on ${inset.rearEdges}.`,
  };
}
