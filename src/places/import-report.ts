// What an import run reports about a place: per source, rows read / loaded / skipped / rejected with the
// reasons; table counts; and the join rates measured with SQL after loading. The importer writes it and
// the catalogue keeps the last one with the place (places.import_report), so it is the place's record.

export interface RejectReason {
  reason: string;
  count: number;
  /** Up to five examples ("record 812: ML '---'"). */
  examples: string[];
}

export interface SourceReport {
  id: string;
  file: string;
  format: string;
  target: string;
  rowsRead: number;
  rowsLoaded: number;
  /** Rows left out on purpose by the manifest (a `where` filter, e.g. Cambridge overlay pieces with OVERLAP='Y'). */
  rowsSkipped: number;
  rowsRejected: number;
  rejects: RejectReason[];
  /** Things loaded but worth knowing (geometry repaired, placeholder dimensions). */
  notes: string[];
}

export interface JoinRate {
  matched: number;
  total: number;
  /** matched / total, 0..1; null when total is 0. */
  rate: number | null;
}

/** Address -> lot by the source's parcel id and by the address point inside a parcel (over every loaded address). */
export interface AddressLotJoin {
  /** Which of the two the place uses (manifest `lotBy`). */
  lotBy: 'id' | 'point' | 'id_then_point';
  /** Addresses whose parcel id is a loaded parcel; null without a parcel id column. */
  byId: JoinRate | null;
  /** Addresses whose point lies inside a parcel; null without points or parcels. */
  byPoint: JoinRate | null;
  /** Addresses found by both whose id names another lot than the one holding the point. */
  disagreements: number;
  examples: string[];
}

/** Whether a live place's join rates pass its manifest's thresholds (`joinThresholds`). */
export interface JoinGate {
  /** False: the place stays planned_not_live until its joins pass. */
  passed: boolean;
  thresholds: { addressToLot: number; lotToZone: number };
  problems: string[];
  /** The place has no zoning map (manifest districtSource stated): lot -> zone is not a condition. */
  districtsStated?: true;
}

export interface ImportReport {
  slug: string;
  placeId: string;
  /** False when the sources matched the last successful import: nothing was rewritten. */
  changed: boolean;
  sourceDigest: string;
  sourceDir: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  sources: SourceReport[];
  /** A layer that shrank past its maxShrinkShare, loaded with `--accept-shrink "<reason>"`. */
  acceptedShrink?: { reason: string; problems: string[] };
  totals: { rowsRead: number; rowsLoaded: number; rowsSkipped: number; rowsRejected: number };
  counts: {
    addresses: number;
    parcels: number;
    zones: number;
    baseZones: number;
    overlayZones: number;
    streetSegments: number;
    boundaries: number;
    parcelZones: number;
    postcodes: number;
  };
  joinRates: {
    /** Address rows whose parcel id is a loaded parcel. */
    addressToParcel: JoinRate;
    /** Parcels with at least one base district (parcels.primary_zone). */
    parcelToZone: JoinRate;
    /** Address rows whose parcel has a base district. */
    addressToParcelToZone: JoinRate;
    /** Parcels in at least one overlay district; rate null when the place has no overlay layer. */
    parcelToOverlay: JoinRate;
  };
  /** Address -> lot by id and by point, with their disagreements (places with an address table). */
  addressLots?: AddressLotJoin;
  /** Set for places whose manifest says live: whether the join rates pass its thresholds. */
  gate?: JoinGate;
  /** Milliseconds per step (read, load, lot facts, join rates). */
  timings: Record<string, number>;
  warnings: string[];
}

export function joinRate(matched: number, total: number): JoinRate {
  return { matched, total, rate: total === 0 ? null : matched / total };
}
