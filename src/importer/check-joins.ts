// `siteline data check <slug> --from DIR`: reads and transforms a place's sources exactly as the import
// does, then measures its joins in memory (address -> lot by id and by point, lot -> zone, lot ->
// overlay) and the go-live thresholds, without opening a database.
import { SitelineError } from '../core/errors.ts';
import { loadManifest, type Manifest } from '../places/manifest.ts';
import { placeRootFor, verifySourceFiles } from './import-place.ts';
import { formatVerdict, placeVerdict, type PlaceVerdict } from './place-gate.ts';
import { readSource, sourceColumns } from './read-source.ts';
import { emptyPlaceRows, sourcesInLoadOrder, SourceTally, transformSource, type PlaceRows } from './transform-sources.ts';
import { formatAddressLots, pct } from './import-report.ts';
import type { AddressLotJoin, ImportReport, JoinGate, SourceReport } from '../places/import-report.ts';
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
  /** The one gate data import applies too (place-gate.ts): refused, not live or live, with its refusals. */
  verdict: PlaceVerdict;
}

export async function checkPlaceJoins(slug: string, opts: { sourceDir: string | undefined; placesDir: string }): Promise<JoinCheck> {
  return (await checkManifestJoins(loadManifest(slug, opts.placesDir), opts)).check;
}

/** The join check of a manifest given as an object (data update checks a candidate before writing it), with the rows read. */
export async function checkManifestJoins(
  m: Manifest,
  opts: { sourceDir: string | undefined; placesDir: string; acceptShrink?: string },
): Promise<{ check: JoinCheck; rows: PlaceRows; columns: Record<string, string[]> }> {
  const slug = m.slug;
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
  const pairs: { source: (typeof m.sources)[number]; report: SourceReport }[] = [];
  const columns: Record<string, string[]> = {};
  for (const s of sourcesInLoadOrder(m)) {
    const tally = new SourceTally(s);
    try {
      const data = await readSource(placeRoot, s);
      columns[s.id] = sourceColumns(data);
      transformSource(data, tally, rows);
    } catch (err) {
      throw new SitelineError('bad_input', `${slug}: cannot read ${s.file}: ${(err as Error).message}`);
    }
    sources.push(tally.report());
    pairs.push({ source: s, report: tally.report() });
  }
  const citations = await verifyPlaceCitations(slug, { placesDir: opts.placesDir, sourceDir: opts.sourceDir, placeRoot });
  const verdict = placeVerdict({
    manifest: m,
    placesDir: opts.placesDir,
    sources: pairs,
    rows,
    fileProblems,
    citations,
    ...(opts.acceptShrink ? { acceptShrink: opts.acceptShrink } : {}),
  });
  const { joinRates, gate } = verdict;
  const check: JoinCheck = {
    slug,
    placeRoot,
    fileProblems,
    sources,
    joinRates,
    ...(rows.addressLots ? { addressLots: rows.addressLots } : {}),
    ...(gate ? { gate } : {}),
    citations,
    verdict,
  };
  return { check, rows, columns };
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
  L.push(...formatCitationVerdict(c.citations));
  L.push(...formatVerdict(c.verdict, 'check'));
  return L.join('\n') + '\n';
}
