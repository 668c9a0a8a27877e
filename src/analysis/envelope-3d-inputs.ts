// What the envelope solid (envelope-3d.ts) is computed from, gathered for a snapshot's lot and for a
// project's build lot: the lot polygon, its front street's centreline near it, the lot facts, and the
// envelope values as the snapshot or the analysis states them.
import type { Queryable } from '../db/database.ts';
import type { Snapshot, Sourced } from '../core/snapshot-types.ts';
import { conditionOf } from '../snapshot/refs.ts';
import { parcelNear, snapshotLot, type LotSnapshot } from '../projects/project-lots.ts';
import {
  ENVELOPE_3D_MEMBERS,
  ENVELOPE_3D_OPTIONAL,
  envelope3d,
  type Envelope3d,
  type Envelope3dMember,
  type Envelope3dOptional,
  type Envelope3dValue,
} from './envelope-3d.ts';

/** How far from the snapshot's inside point the lot is looked for (it lies inside the lot). */
const LOT_SEARCH_M = 500;

export interface Envelope3dOfLot {
  lot: Pick<LotSnapshot, 'parcelExternalId' | 'polygon'>;
  solid: Envelope3d;
}

function values(
  get: (m: Envelope3dMember | Envelope3dOptional) => Envelope3dValue | undefined,
): Partial<Record<Envelope3dMember | Envelope3dOptional, Envelope3dValue>> {
  const out: Partial<Record<Envelope3dMember | Envelope3dOptional, Envelope3dValue>> = {};
  for (const m of [...ENVELOPE_3D_MEMBERS, ...ENVELOPE_3D_OPTIONAL]) {
    const v = get(m);
    if (v) out[m] = v;
  }
  return out;
}

/** The solid of an answered snapshot's lot (null when the snapshot has no lot or its parcel is gone). */
export async function envelope3dOfSnapshot(q: Queryable, s: Snapshot): Promise<Envelope3dOfLot | null> {
  const placeId = s.coverage.geoDivisionId;
  if (!s.lot || !placeId) return null;
  const found = await parcelNear(q, placeId, s.lot.parcelExternalId, { lat: s.lot.latitude, lng: s.lot.longitude }, LOT_SEARCH_M);
  if (found.kind !== 'found') return null;
  const lot = await snapshotLot(q, found.parcel);
  const facts = (typeof found.parcel.facts === 'string' ? JSON.parse(found.parcel.facts) : found.parcel.facts) as { throughLot?: boolean | null } | null;
  const env = s.envelope ?? {};
  const solid = envelope3d({
    lots: [lot.polygon],
    frontStreetLines: lot.frontStreetLines,
    cornerLot: lot.cornerLot,
    throughLot: facts?.throughLot ?? null,
    values: values((m) => {
      const v = env[m];
      if (!v) return undefined;
      const condition = conditionOf(s, v);
      return {
        value: v.value,
        status: v.status,
        unit: v.unit ?? 'ft',
        ...(v.statedNoLimit ? { statedNoLimit: v.statedNoLimit } : {}),
        ...(condition ? { condition } : {}),
      };
    }),
  });
  return { lot, solid };
}

/** The solid of one build lot of a project, from the standards its latest finished analysis resolved. */
export function envelope3dOfProjectLot(lot: LotSnapshot, standards: Record<string, Sourced | undefined>): Envelope3dOfLot {
  const solid = envelope3d({
    lots: [lot.polygon],
    frontStreetLines: lot.frontStreetLines,
    cornerLot: lot.cornerLot,
    values: values((m) => {
      const v = standards[m];
      if (!v) return undefined;
      return {
        value: v.value ?? null,
        status: v.status,
        unit: v.unit ?? 'ft',
        ...(v.statedNoLimit ? { statedNoLimit: v.statedNoLimit } : {}),
        ...(v.condition ? { condition: v.condition } : {}),
      };
    }),
  });
  return { lot, solid };
}
