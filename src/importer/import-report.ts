// An import run's report as text for a terminal, and the reject counter a transform fills in (the
// report's shape is the place's record: src/places/import-report.ts).
import type { AddressLotJoin, ImportReport, JoinGate, JoinRate, RejectReason } from '../places/import-report.ts';

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

export const pct = (j: JoinRate) =>
  j.rate === null ? 'n/a (nothing to join)' : `${j.matched.toLocaleString('en-US')} of ${j.total.toLocaleString('en-US')} = ${(j.rate * 100).toFixed(2)} %`;

/** The address -> lot lines (by id, by point, disagreements). */
export function formatAddressLots(a: AddressLotJoin): string[] {
  const lines = [`    address -> lot by id       ${a.byId ? pct(a.byId) : 'n/a (no parcel id column)'}${a.lotBy === 'id' ? '   (used)' : ''}`];
  lines.push(`    address -> lot by point    ${a.byPoint ? pct(a.byPoint) : 'n/a (no address points)'}${a.lotBy === 'point' ? '   (used)' : ''}`);
  if (a.lotBy === 'id_then_point') lines.push('    (used: the id, else the point)');
  if (a.byId && a.byPoint)
    lines.push(
      `    id and point disagree      ${a.disagreements.toLocaleString('en-US')}${a.examples.length ? ` (e.g. ${a.examples.slice(0, 3).join('; ')})` : ''}`,
    );
  return lines;
}

/** The gate lines: passed, or why the place stays planned_not_live. */
function formatGate(g: JoinGate): string[] {
  const t = g.districtsStated
    ? `address -> lot >= ${(g.thresholds.addressToLot * 100).toFixed(0)} %; lot -> zone not required: no zoning map, each answer's district is stated by its caller`
    : `address -> lot >= ${(g.thresholds.addressToLot * 100).toFixed(0)} %, lot -> zone >= ${(g.thresholds.lotToZone * 100).toFixed(0)} %`;
  if (g.passed) return [`  live: the join rates pass the thresholds (${t})`];
  return [`  NOT LIVE: the place stays planned_not_live until its joins pass (${t}):`, ...g.problems.map((p) => `    - ${p}`)];
}

/** The report as text for a terminal. */
export function formatImportReport(r: ImportReport): string {
  const lines: string[] = [];
  lines.push(
    `Import ${r.slug} (${r.placeId}): ${r.changed ? 'loaded' : 'unchanged (same sources as the last import; nothing rewritten)'} in ${(r.durationMs / 1000).toFixed(1)} s`,
  );
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
  lines.push(
    `  total                                     ${String(r.totals.rowsRead).padStart(6)} ${String(r.totals.rowsLoaded).padStart(8)} ${String(r.totals.rowsSkipped).padStart(8)} ${String(r.totals.rowsRejected).padStart(8)}`,
  );
  lines.push('');
  const c = r.counts;
  lines.push(
    `  tables: ${c.addresses} addresses, ${c.parcels} parcels, ${c.zones} zones (${c.baseZones} base, ${c.overlayZones} overlay), ${c.streetSegments} street segments, ${c.boundaries} boundary, ${c.parcelZones} lot-district shares, ${c.postcodes} postcodes`,
  );
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
