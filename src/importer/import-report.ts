// What an import run tells its caller: per source, rows read / loaded / skipped / rejected with the
// reasons; table counts; and the join rates measured with SQL after loading.

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
  totals: { rowsRead: number; rowsLoaded: number; rowsSkipped: number; rowsRejected: number };
  counts: { addresses: number; parcels: number; zones: number; baseZones: number; overlayZones: number; streetSegments: number; boundaries: number; parcelZones: number; postcodes: number };
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

export class RejectCounter {
  private readonly reasons = new Map<string, RejectReason>();
  total = 0;
  add(reason: string, example: string): void {
    this.total++;
    let r = this.reasons.get(reason);
    if (!r) {
      r = { reason, count: 0, examples: [] };
      this.reasons.set(reason, r);
    }
    r.count++;
    if (r.examples.length < 5) r.examples.push(example);
  }
  list(): RejectReason[] {
    return [...this.reasons.values()].sort((a, b) => b.count - a.count);
  }
}

export function joinRate(matched: number, total: number): JoinRate {
  return { matched, total, rate: total === 0 ? null : matched / total };
}

export const pct = (j: JoinRate) => (j.rate === null ? 'n/a (nothing to join)' : `${j.matched.toLocaleString('en-US')} of ${j.total.toLocaleString('en-US')} = ${(j.rate * 100).toFixed(2)} %`);

/** The address -> lot lines (by id, by point, disagreements). */
export function formatAddressLots(a: AddressLotJoin): string[] {
  const lines = [`    address -> lot by id       ${a.byId ? pct(a.byId) : 'n/a (no parcel id column)'}${a.lotBy === 'id' ? '   (used)' : ''}`];
  lines.push(`    address -> lot by point    ${a.byPoint ? pct(a.byPoint) : 'n/a (no address points)'}${a.lotBy === 'point' ? '   (used)' : ''}`);
  if (a.lotBy === 'id_then_point') lines.push('    (used: the id, else the point)');
  if (a.byId && a.byPoint) lines.push(`    id and point disagree      ${a.disagreements.toLocaleString('en-US')}${a.examples.length ? ` (e.g. ${a.examples.slice(0, 3).join('; ')})` : ''}`);
  return lines;
}

/** The gate lines: passed, or why the place stays planned_not_live. */
export function formatGate(g: JoinGate): string[] {
  const t = g.districtsStated
    ? `address -> lot >= ${(g.thresholds.addressToLot * 100).toFixed(0)} %; lot -> zone not required: no zoning map, each answer's district is stated by its caller`
    : `address -> lot >= ${(g.thresholds.addressToLot * 100).toFixed(0)} %, lot -> zone >= ${(g.thresholds.lotToZone * 100).toFixed(0)} %`;
  if (g.passed) return [`  live: the join rates pass the thresholds (${t})`];
  return [`  NOT LIVE: the place stays planned_not_live until its joins pass (${t}):`, ...g.problems.map((p) => `    - ${p}`)];
}

/** The report as text for a terminal. */
export function formatImportReport(r: ImportReport): string {
  const lines: string[] = [];
  lines.push(`Import ${r.slug} (${r.placeId}): ${r.changed ? 'loaded' : 'unchanged (same sources as the last import; nothing rewritten)'} in ${(r.durationMs / 1000).toFixed(1)} s`);
  lines.push(`  sources from ${r.sourceDir}, digest ${r.sourceDigest.slice(0, 16)}`);
  lines.push('');
  lines.push('  source                 target             read   loaded  skipped rejected');
  for (const s of r.sources) {
    lines.push(
      `  ${s.id.padEnd(22)} ${s.target.padEnd(17)} ${String(s.rowsRead).padStart(6)} ${String(s.rowsLoaded).padStart(8)} ${String(s.rowsSkipped).padStart(8)} ${String(s.rowsRejected).padStart(8)}`,
    );
    for (const rej of s.rejects) lines.push(`      rejected ${rej.count} x ${rej.reason} (e.g. ${rej.examples.slice(0, 3).join('; ')})`);
    for (const n of s.notes) lines.push(`      note: ${n}`);
  }
  lines.push(`  total                                     ${String(r.totals.rowsRead).padStart(6)} ${String(r.totals.rowsLoaded).padStart(8)} ${String(r.totals.rowsSkipped).padStart(8)} ${String(r.totals.rowsRejected).padStart(8)}`);
  lines.push('');
  const c = r.counts;
  lines.push(`  tables: ${c.addresses} addresses, ${c.parcels} parcels, ${c.zones} zones (${c.baseZones} base, ${c.overlayZones} overlay), ${c.streetSegments} street segments, ${c.boundaries} boundary, ${c.parcelZones} lot-district shares, ${c.postcodes} postcodes`);
  lines.push('  join rates:');
  lines.push(`    address -> parcel          ${pct(r.joinRates.addressToParcel)}`);
  lines.push(`    parcel -> zone             ${pct(r.joinRates.parcelToZone)}`);
  lines.push(`    address -> parcel -> zone  ${pct(r.joinRates.addressToParcelToZone)}`);
  lines.push(`    parcel -> overlay          ${r.joinRates.parcelToOverlay.rate === null ? 'n/a (no overlay layer)' : pct(r.joinRates.parcelToOverlay)}`);
  if (r.addressLots) lines.push(...formatAddressLots(r.addressLots));
  if (r.gate) lines.push(...formatGate(r.gate));
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  return lines.join('\n') + '\n';
}
