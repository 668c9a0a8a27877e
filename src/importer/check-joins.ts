// `siteline data check <slug> --from DIR`: reads and transforms a place's sources exactly as the import
// does, then measures its joins in memory (address -> lot by id and by point, lot -> zone, lot ->
// overlay) and the go-live thresholds, without opening a database.
import { SitelineError } from '../core/errors.ts';
import { loadManifest, type Manifest } from './manifest.ts';
import { joinGate, placeRootFor, verifySourceFiles } from './import-place.ts';
import { readSource } from './read-source.ts';
import { emptyPlaceRows, sourcesInLoadOrder, SourceTally, transformSource } from './transform-sources.ts';
import { formatAddressLots, formatGate, joinRate, pct, type AddressLotJoin, type ImportReport, type JoinGate, type SourceReport } from './import-report.ts';
import { LotIndex } from './lot-index.ts';
import { formatCitationVerdict, verifyPlaceCitations, type CitationVerdict } from './place-citations.ts';

export interface JoinCheck {
  slug: string;
  placeRoot: string;
  /** Checksum problems (the import would refuse these files). */
  fileProblems: string[];
  sources: SourceReport[];
  joinRates: ImportReport['joinRates'];
  addressLots?: AddressLotJoin;
  /** For a manifest that says live: whether an import would make the place live. */
  gate?: JoinGate;
  /** The rules file's citations against the place's held documents (an import refuses any that fail). */
  citations: CitationVerdict;
}

export async function checkPlaceJoins(slug: string, opts: { sourceDir: string | undefined; placesDir: string }): Promise<JoinCheck> {
  const m: Manifest = loadManifest(slug, opts.placesDir);
  const { placeRoot } = placeRootFor(opts.sourceDir, m);
  const fileProblems: string[] = [];
  try {
    await verifySourceFiles(m, placeRoot);
  } catch (err) {
    if (!(err instanceof SitelineError)) throw err;
    fileProblems.push(...((err.details?.['problems'] as string[] | undefined) ?? [err.message]));
  }
  const rows = emptyPlaceRows();
  const sources: SourceReport[] = [];
  for (const s of sourcesInLoadOrder(m)) {
    const tally = new SourceTally(s);
    try {
      transformSource(await readSource(placeRoot, s), tally, rows);
    } catch (err) {
      throw new SitelineError('bad_input', `${slug}: cannot read ${s.file}: ${(err as Error).message}`);
    }
    sources.push(tally.report());
  }
  const base = rows.zones.filter((z) => z.layer === 'base');
  const overlay = rows.zones.filter((z) => z.layer === 'overlay');
  const baseIndex = new LotIndex(base.map((z) => ({ id: z.zoneId, geom: z.geom, bbox: z.bbox })));
  const overlayIndex = new LotIndex(overlay.map((z) => ({ id: z.zoneId, geom: z.geom, bbox: z.bbox })));
  const zoned = new Set<string>();
  let inOverlay = 0;
  for (const p of rows.parcels.values()) {
    if (baseIndex.lotsAt([p.insideLon, p.insideLat]).length) zoned.add(p.parcelExtId);
    if (overlay.length && overlayIndex.lotsAt([p.insideLon, p.insideLat]).length) inOverlay++;
  }
  const withLot = rows.addresses.filter((a) => a.parcelExtId !== null && rows.parcels.has(a.parcelExtId));
  const joinRates: ImportReport['joinRates'] = {
    addressToParcel: joinRate(withLot.length, rows.addresses.length),
    parcelToZone: joinRate(zoned.size, rows.parcels.size),
    addressToParcelToZone: joinRate(withLot.filter((a) => zoned.has(a.parcelExtId!)).length, rows.addresses.length),
    parcelToOverlay: overlay.length ? joinRate(inOverlay, rows.parcels.size) : joinRate(0, 0),
  };
  const gate = joinGate(m, joinRates);
  const citations = await verifyPlaceCitations(slug, { placesDir: opts.placesDir, sourceDir: opts.sourceDir, placeRoot });
  return { slug, placeRoot, fileProblems, sources, joinRates, ...(rows.addressLots ? { addressLots: rows.addressLots } : {}), ...(gate ? { gate } : {}), citations };
}

export function formatJoinCheck(c: JoinCheck): string {
  const L = [`Join check ${c.slug} (files in ${c.placeRoot}; nothing written)`];
  for (const p of c.fileProblems) L.push(`  file: ${p}`);
  for (const s of c.sources) {
    L.push(`  ${s.id.padEnd(14)} ${s.target.padEnd(12)} ${s.rowsRead} read, ${s.rowsLoaded} usable, ${s.rowsRejected} rejected`);
    for (const r of s.rejects.slice(0, 3)) L.push(`      rejected ${r.count} x ${r.reason} (e.g. ${r.examples.slice(0, 2).join('; ')})`);
    for (const n of s.notes) L.push(`      note: ${n}`);
  }
  L.push('  join rates:');
  L.push(`    address -> lot             ${pct(c.joinRates.addressToParcel)}`);
  L.push(`    lot -> zone                ${pct(c.joinRates.parcelToZone)}`);
  L.push(`    address -> lot -> zone     ${pct(c.joinRates.addressToParcelToZone)}`);
  L.push(`    lot -> overlay             ${c.joinRates.parcelToOverlay.rate === null ? 'n/a (no overlay layer)' : pct(c.joinRates.parcelToOverlay)}`);
  if (c.addressLots) L.push(...formatAddressLots(c.addressLots));
  if (c.gate) L.push(...formatGate(c.gate).map((l) => l.replace('NOT LIVE: the place stays', 'NOT LIVE: an import would keep the place')));
  L.push(...formatCitationVerdict(c.citations));
  return L.join('\n') + '\n';
}
