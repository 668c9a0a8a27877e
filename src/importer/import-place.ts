// Imports one place from its manifest: verify every file's sha256, read and transform each source,
// then (unless the sources match the last successful import) replace the place's rows in one
// transaction, derive lot facts, measure join rates with SQL and record the run.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError } from '../core/errors.ts';
import { bboxOf, boxLiteral, type BBox } from '../core/geo/primitives.ts';
import { insertLotsWithFacts, WORKER_DERIVE_MIN_PARCELS, type LotsLoaded } from './load-lots.ts';
import { upsertPlaceFromManifest, effectiveStatus } from '../places/catalogue.ts';
import { canonicalJson, digestOf, listManifestSlugs, loadManifest, sourceFiles, type Manifest } from '../places/manifest.ts';
import { readSource, sourceColumns } from './read-source.ts';
import { emptyPlaceRows, sourcesInLoadOrder, SourceTally, transformSource, type PlaceRows } from './transform-sources.ts';
import { analyzePlaceTables, insertAddresses, insertLotLocations, insertStreetSegments, insertZones } from './load-tables.ts';
import { beginPlaceLoad, finishPlaceLoad, swapPlaceLoad, type PartitionedTable } from '../db/place-partitions.ts';
import { joinRate, type ImportReport } from '../places/import-report.ts';
import { describeRefusal, isBlocking, joinGate, placeVerdict, rulesDigests } from './place-gate.ts';
import { auditAfterImport } from './audit-place.ts';
import { refuseUnverified, verifyPlaceCitations } from './place-citations.ts';
import { placePostcodes } from './place-postcodes.ts';

/**
 * Bumped when the importer's output for the same sources changes, so old imports are redone at the
 * next start. 4: lot areas on the ellipsoid, the frontage and corner fixes, minor district shares,
 * the assessor's lot locations (lot_locations) and row ids never used as join keys, all of which
 * changed stored rows after version 3 without a bump: a data directory imported before them kept
 * the old facts. 5: addresses.source_lot_id (the town's own lot id, kept whatever the join).
 * 6: addresses.in_right_of_way (the town's table places the address in a street or public way).
 * 7: parcels.facts.notCorner (why a lot on two streets is not a corner lot) and frontByStreet[…].bulbM
 * (the frontage a cul-de-sac's dead-end rule measured). 8: parcels.facts.unshared (the sides no other lot
 * shares, in a place without street centrelines), shapefiles in a zip read through a column allow-list,
 * address ranges expanded; no stored row of a place with centrelines changed. 9: place_postcodes holds
 * only the postcodes a real share of the place's records carry (place-postcodes.ts; Cambridge drops
 * 01241 and 01940, Somerville 01244, 02135 and 02474).
 */
const IMPORTER_VERSION = '9';

export interface ImportOptions {
  /** Where the place folders live (default: config.sourceDir, i.e. ../shared/data when it exists). */
  sourceDir?: string;
  /** No progress messages (to the logger or stderr). */
  quiet?: boolean;
  onProgress?: (msg: string) => void;
  /** Re-import even when the sources match the last import. */
  force?: boolean;
  /** Where manifests live (default: config.placesDir, i.e. SITELINE_PLACES_DIR or the repository's places/). */
  placesDir?: string;
  /** The accuracy audit after the import (audit-place.ts): wait for it, run it in the background, or skip it (default). */
  audit?: 'await' | 'background' | 'off';
  /** The change log against the previous vintage (data update), kept with the new vintage. */
  changeLog?: unknown;
  /** Every change of the update, one per lot or address (data update), kept in place_changes under the new vintage. */
  changeEntries?: { kind: string; subject: string; detail: Record<string, unknown> }[];
  /** The town's date for the files (the update's vintage), kept with each change entry. */
  townVintage?: string;
  /** `--accept-shrink "<reason>"`: load a layer that lost more than its maxShrinkShare; the reason is kept in the vintage's change log. */
  acceptShrink?: string;
}

export async function sha256File(file: string): Promise<string> {
  const h = crypto.createHash('sha256');
  await new Promise<void>((resolve, reject) => {
    fs.createReadStream(file)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve())
      .on('error', reject);
  });
  return h.digest('hex');
}

/** Checks that every file the manifest names exists with its declared sha256; throws one error listing all problems. */
export async function verifySourceFiles(m: Manifest, placeRoot: string): Promise<number> {
  const files = [...m.sources.flatMap(sourceFiles), ...m.documents.map((d) => ({ file: d.file, sha256: d.sha256 }))];
  const problems: string[] = [];
  await Promise.all(
    files.map(async (f) => {
      const abs = path.join(placeRoot, f.file);
      if (!fs.existsSync(abs)) {
        problems.push(`missing: ${f.file}`);
        return;
      }
      const actual = await sha256File(abs);
      if (actual !== f.sha256) problems.push(`checksum mismatch: ${f.file} is ${actual}, the manifest says ${f.sha256}`);
    }),
  );
  if (problems.length) {
    throw new SitelineError(
      'bad_input',
      `${m.slug}: ${problems.length} source file(s) failed verification in ${placeRoot}:\n  ${problems.sort().join('\n  ')}`,
      { problems },
    );
  }
  return files.length;
}

function resolveSourceDir(ctx: AppContext, m: Manifest, opts: ImportOptions): { sourceDir: string; placeRoot: string } {
  return placeRootFor(opts.sourceDir ?? ctx.config.sourceDir, m);
}

/** The source directory and the place's folder in it; `dir` may also be the place's folder itself. */
export function placeRootFor(dir: string | undefined, m: Manifest): { sourceDir: string; placeRoot: string } {
  if (!dir) throw new SitelineError('bad_input', 'No source directory: pass --from DIR or set SITELINE_SOURCE_DIR (default ../shared/data when it exists).');
  const sourceDir = path.resolve(dir);
  if (!fs.existsSync(sourceDir) || !fs.statSync(sourceDir).isDirectory()) throw new SitelineError('bad_input', `Source directory ${sourceDir} does not exist.`);
  let placeRoot = path.join(sourceDir, m.sourceFolder);
  // `--from` may name the place's folder itself (as `siteline data init --from DIR` did).
  if (!fs.existsSync(placeRoot) && path.basename(sourceDir) === path.basename(m.sourceFolder)) placeRoot = sourceDir;
  if (!fs.existsSync(placeRoot)) throw new SitelineError('bad_input', `${m.slug}: folder ${m.sourceFolder} is not in ${sourceDir}.`);
  return { sourceDir, placeRoot };
}

async function count(q: Queryable, sql: string, params: unknown[]): Promise<number> {
  const r = await q.query<{ n: number | string }>(sql, params);
  return Number(r[0]?.n ?? 0);
}

/** The relations a place's rows are read from: the tables, or a load's new partitions before they are swapped in. */
type PlaceRelations = Record<PartitionedTable, string>;

async function measure(q: Queryable, placeId: string, t: PlaceRelations): Promise<Pick<ImportReport, 'counts' | 'joinRates'>> {
  const p = [placeId];
  const addresses = await count(q, `SELECT count(*) AS n FROM ${t.addresses} WHERE place_id = $1`, p);
  const parcels = await count(q, `SELECT count(*) AS n FROM ${t.parcels} WHERE place_id = $1`, p);
  const baseZones = await count(q, `SELECT count(*) AS n FROM ${t.zones} WHERE place_id = $1 AND layer = 'base'`, p);
  const overlayZones = await count(q, `SELECT count(*) AS n FROM ${t.zones} WHERE place_id = $1 AND layer = 'overlay'`, p);
  const streetSegments = await count(q, `SELECT count(*) AS n FROM ${t.street_segments} WHERE place_id = $1`, p);
  const boundaries = await count(q, 'SELECT count(*) AS n FROM place_boundaries WHERE place_id = $1', p);
  const parcelZones = await count(q, `SELECT coalesce(sum(json_array_length(zones)), 0) AS n FROM ${t.parcels} WHERE place_id = $1`, p);
  const postcodes = await count(q, 'SELECT count(*) AS n FROM place_postcodes WHERE place_id = $1', p);
  const addrParcel = await count(
    q,
    `SELECT count(*) AS n FROM ${t.addresses} a WHERE a.place_id = $1 AND EXISTS (SELECT 1 FROM ${t.parcels} p WHERE p.place_id = a.place_id AND p.parcel_ext_id = a.parcel_ext_id)`,
    p,
  );
  const parcelZone = await count(q, `SELECT count(*) AS n FROM ${t.parcels} WHERE place_id = $1 AND primary_zone IS NOT NULL`, p);
  const parcelOverlay = await count(
    q,
    `SELECT count(*) AS n FROM ${t.parcels} p WHERE p.place_id = $1 AND EXISTS (SELECT 1 FROM json_array_elements(p.zones) z WHERE z->>'layer' = 'overlay')`,
    p,
  );
  const addrZone = await count(
    q,
    `SELECT count(*) AS n FROM ${t.addresses} a WHERE a.place_id = $1 AND EXISTS (SELECT 1 FROM ${t.parcels} p WHERE p.place_id = a.place_id AND p.parcel_ext_id = a.parcel_ext_id AND p.primary_zone IS NOT NULL)`,
    p,
  );
  return {
    counts: { addresses, parcels, zones: baseZones + overlayZones, baseZones, overlayZones, streetSegments, boundaries, parcelZones, postcodes },
    joinRates: {
      addressToParcel: joinRate(addrParcel, addresses),
      parcelToZone: joinRate(parcelZone, parcels),
      addressToParcelToZone: joinRate(addrZone, addresses),
      // No overlay layer: nothing to join (n/a), not 0 %.
      parcelToOverlay: overlayZones === 0 ? joinRate(0, 0) : joinRate(parcelOverlay, parcels),
    },
  };
}

function placeBBox(rows: PlaceRows, m: Manifest): BBox {
  const parts: BBox[] = [];
  if (rows.boundary) parts.push(bboxOf(rows.boundary));
  else {
    for (const z of rows.zones) parts.push(z.bbox);
    for (const pr of rows.parcels.values()) parts.push(pr.bbox);
  }
  if (parts.length === 0) return m.bbox;
  return [Math.min(...parts.map((b) => b[0])), Math.min(...parts.map((b) => b[1])), Math.max(...parts.map((b) => b[2])), Math.max(...parts.map((b) => b[3]))];
}

export { joinGate };

/** The digest a place's import is stored under: a different one means the stored data is stale. */
export function importDigest(m: Manifest): string {
  return digestOf(IMPORTER_VERSION, canonicalJson(m));
}

async function lastImport(q: Queryable, placeId: string): Promise<{ digest: string | null; report: ImportReport | null }> {
  const r = await q.query<{ imported_at: unknown; import_report: ImportReport | null }>('SELECT imported_at, import_report FROM places WHERE place_id = $1', [
    placeId,
  ]);
  const row = r[0];
  if (!row?.imported_at || !row.import_report) return { digest: null, report: null };
  return { digest: row.import_report.sourceDigest, report: row.import_report };
}

/** The failed-import marker in import_runs (source_digest): `data status` shows the latest one with its reason. */
export const FAILED_RUN = 'failed';

/**
 * Imports a place (see importPlace below); a refused or unreadable import is recorded in import_runs
 * with its reason, so `siteline data status` lists it. The place's previous data stays as it was.
 */
export async function importPlace(ctx: AppContext, slug: string, opts: ImportOptions = {}): Promise<ImportReport> {
  const startedAt = ctx.clock.now().toISOString();
  try {
    return await importPlaceOnce(ctx, slug, opts);
  } catch (err) {
    if (err instanceof SitelineError && err.code === 'bad_input') {
      let placeId: string | null = null;
      try {
        placeId = loadManifest(slug, opts.placesDir ?? ctx.config.placesDir).geoDivisionId;
      } catch {
        placeId = null; // the manifest itself does not load: data status reports it from the file
      }
      if (placeId) {
        await ctx.db
          .query('INSERT INTO import_runs (place_id, started_at, finished_at, source_digest, changed, report) VALUES ($1, $2, $3, $4, false, $5::jsonb)', [
            placeId,
            startedAt,
            ctx.clock.now().toISOString(),
            FAILED_RUN,
            JSON.stringify({ slug, failed: true, reason: err.message, problems: (err.details?.['problems'] as string[] | undefined) ?? [] }),
          ])
          // The refusal itself is rethrown below; only its record is lost, and that is logged.
          .catch((recordErr) =>
            ctx.logger.error(
              { place: slug, err: recordErr instanceof Error ? recordErr.message : String(recordErr) },
              'the refused import could not be recorded in import_runs',
            ),
          );
      }
    }
    throw err;
  }
}

/** One import in flight: the place, where its files are, how it reports and the time each step took. */
interface ImportRun {
  ctx: AppContext;
  slug: string;
  opts: ImportOptions;
  m: Manifest;
  placesDir: string;
  sourceDir: string;
  placeRoot: string;
  sourceDigest: string;
  started: number;
  startedAt: string;
  timings: Record<string, number>;
  progress(msg: string): void;
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * The import, step by step: verify the files and the citations; refresh the catalogue; record an
 * unchanged run when the sources match the last import; read and transform every source; refuse what
 * the gate refuses; then in one transaction replace the place's tables, measure them and record the run.
 */
async function importPlaceOnce(ctx: AppContext, slug: string, opts: ImportOptions = {}): Promise<ImportReport> {
  const run = beginImport(ctx, slug, opts);
  const citations = await verifyFilesAndCitations(run);
  await catalogueEveryPlace(run);
  const last = await lastImport(ctx.db, run.m.geoDivisionId);
  if (!opts.force && last.digest === run.sourceDigest && last.report) return recordUnchanged(run, last.report);

  const read = await readSources(run);
  const verdict = refuseWhatTheGateRefuses(run, read, citations);
  const postcodes = keptPostcodes(run, read.rows);
  const bbox = placeBBox(read.rows, run.m);
  const placeId = run.m.geoDivisionId;
  const result = await ctx.db.transaction(async (tx) => {
    // Serialise concurrent imports of the same place on PostgreSQL.
    if (ctx.db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`siteline-import:${placeId}`]);
    // Another instance (two starting together) may have imported these very sources while this one waited.
    if (!opts.force && (await lastImport(tx, placeId)).digest === run.sourceDigest) return undefined;
    // The place's rows go into new partitions beside the live ones (src/db/place-partitions.ts), indexed
    // once loaded, measured there, and swapped in: readers see the previous import until the commit.
    const partition = await beginPlaceLoad(tx, placeId, read.rows.parcels.size, ctx.db.kind);
    const lots = await run.step('load', () => loadPlaceTables(run, tx, read.rows, postcodes, partition.tables));
    await run.step('index', () => finishPlaceLoad(tx, partition));
    await run.step('analyze', () => analyzePlaceTables(tx, ['place_boundaries', 'place_postcodes']));
    const report = await measuredReport(run, tx, read, lots, verdict, partition.tables);
    await run.step('swap', () => swapPlaceLoad(tx, partition));
    await recordImport(run, tx, report, bbox, read.columns);
    return report;
  });
  if (!result) {
    ctx.caches.placeChanged(placeId); // the place changed under this process: another instance imported it
    return recordUnchanged(run, (await lastImport(ctx.db, placeId)).report!);
  }
  result.durationMs = Date.now() - run.started;
  ctx.caches.placeChanged(placeId); // every cache of the place's data drops it (src/caches.ts)
  run.progress(`${slug}: import finished in ${(result.durationMs / 1000).toFixed(1)} s`);
  if (result.gate && !result.gate.passed) run.progress(`${slug}: loaded but NOT live: ${result.gate.problems.join('; ')}`);
  await auditAfterImport(ctx, slug, placeId, run.sourceDigest, opts.audit ?? 'off', run.progress, true);
  return result;
}

function beginImport(ctx: AppContext, slug: string, opts: ImportOptions): ImportRun {
  const started = Date.now();
  const startedAt = ctx.clock.now().toISOString();
  const progress = (msg: string) => {
    opts.onProgress?.(msg);
    if (!opts.quiet) ctx.logger.info({ place: slug }, msg);
  };
  const timings: Record<string, number> = {};
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = Date.now();
    try {
      return await fn();
    } finally {
      timings[name] = Date.now() - t;
    }
  };
  const placesDir = opts.placesDir ?? ctx.config.placesDir;
  const m = loadManifest(slug, placesDir);
  const { sourceDir, placeRoot } = resolveSourceDir(ctx, m, opts);
  return { ctx, slug, opts, m, placesDir, sourceDir, placeRoot, sourceDigest: importDigest(m), started, startedAt, timings, progress, step };
}

/** Every file's sha256; then every cited value against the held documents: an unverified one refuses the import before anything is written. */
async function verifyFilesAndCitations(run: ImportRun): Promise<Awaited<ReturnType<typeof verifyPlaceCitations>>> {
  const { slug, m, placesDir, sourceDir, placeRoot } = run;
  const nFiles = await run.step('verify', () => verifySourceFiles(m, placeRoot));
  run.progress(`${slug}: ${nFiles} files verified (sha256)`);
  const citations = await run.step('citations', () => verifyPlaceCitations(slug, { placesDir, sourceDir, placeRoot }));
  refuseUnverified(slug, citations);
  if (citations.checked) run.progress(`${slug}: ${citations.verified} of ${citations.checked} citations verified against the held documents`);
  return citations;
}

/** The place's catalogue row, and the rest of the catalogue too, so a database holding one imported place still knows the others. */
async function catalogueEveryPlace(run: ImportRun): Promise<void> {
  await upsertPlaceFromManifest(run.ctx, run.m);
  for (const other of listManifestSlugs(run.placesDir)) {
    if (other === run.slug) continue;
    try {
      await upsertPlaceFromManifest(run.ctx, loadManifest(other, run.placesDir));
    } catch (err) {
      run.progress(`${run.slug}: catalogue entry ${other} skipped: ${(err as Error).message}`);
    }
  }
}

/** The sources match the last import: the run is recorded as unchanged and nothing is rewritten. */
async function recordUnchanged(run: ImportRun, lastReport: ImportReport): Promise<ImportReport> {
  const { ctx, slug, m, sourceDigest } = run;
  const finishedAt = ctx.clock.now().toISOString();
  const report: ImportReport = {
    ...lastReport,
    changed: false,
    sourceDir: run.sourceDir,
    startedAt: run.startedAt,
    finishedAt,
    durationMs: Date.now() - run.started,
    timings: run.timings,
  };
  await ctx.db.query('INSERT INTO import_runs (place_id, started_at, finished_at, source_digest, changed, report) VALUES ($1, $2, $3, $4, false, $5::jsonb)', [
    m.geoDivisionId,
    run.startedAt,
    finishedAt,
    sourceDigest,
    JSON.stringify(report),
  ]);
  run.progress(`${slug}: unchanged since the last import (${lastReport.finishedAt}); nothing rewritten`);
  await auditAfterImport(ctx, slug, m.geoDivisionId, sourceDigest, run.opts.audit ?? 'off', run.progress); // only when no audit of these sources is stored
  return report;
}

interface SourcesRead {
  rows: PlaceRows;
  tallies: SourceTally[];
  /** Each source's columns, kept with the vintage. */
  columns: Record<string, string[]>;
}

/** Reads and transforms every source before the database is touched. */
async function readSources(run: ImportRun): Promise<SourcesRead> {
  const { slug, m, placeRoot } = run;
  const rows = emptyPlaceRows();
  const tallies: SourceTally[] = [];
  const columns: Record<string, string[]> = {};
  await run.step('read', async () => {
    for (const s of sourcesInLoadOrder(m)) {
      const t = Date.now();
      const tally = new SourceTally(s);
      let data;
      try {
        data = await readSource(placeRoot, s);
      } catch (err) {
        throw new SitelineError('bad_input', `${slug}: cannot read ${s.file}: ${(err as Error).message}`);
      }
      columns[s.id] = sourceColumns(data);
      transformSource(data, tally, rows);
      tallies.push(tally);
      run.progress(
        `${slug}: read ${s.id} (${s.format}): ${tally.rowsRead} rows, ${tally.rowsLoaded} usable, ${tally.rejects.total} rejected, ${Date.now() - t} ms`,
      );
    }
  });
  return { rows, tallies, columns };
}

/**
 * The one gate `data check` uses too (place-gate.ts): a source that had rows but yielded none usable
 * (a renamed field), a rejected share or row count beyond the manifest's bounds, placeholders left in
 * a live place's files: refused before the place's current data is replaced, each refusal naming the
 * manifest setting that governs it. The join thresholds are measured on the same rows in memory.
 */
function refuseWhatTheGateRefuses(
  run: ImportRun,
  read: SourcesRead,
  citations: Awaited<ReturnType<typeof verifyPlaceCitations>>,
): ReturnType<typeof placeVerdict> {
  const { slug, m, placesDir, opts } = run;
  const { rows, tallies } = read;
  const verdict = placeVerdict({
    manifest: m,
    placesDir,
    sources: tallies.map((t) => ({ source: t.source, report: t.report() })),
    rows,
    fileProblems: [],
    citations,
    force: opts.force ?? false,
    ...(opts.acceptShrink ? { acceptShrink: opts.acceptShrink } : {}),
  });
  if (verdict.verdict === 'refused') {
    const blocking = verdict.refusals.filter((r) => isBlocking(r, opts));
    const examples = tallies
      .flatMap((t) => t.rejects.list().flatMap((r) => r.examples.slice(0, 2).map((e) => `${t.source.id}: ${r.reason}: ${e}`)))
      .slice(0, 5);
    throw new SitelineError(
      'bad_input',
      `${slug}: refusing to import:\n  - ${blocking.map(describeRefusal).join('\n  - ')}${examples.length ? `\n  For example: ${examples.join('; ')}.` : ''}\nNothing was changed; the previous data stays.${blocking.some((r) => r.forceable) ? ' Mend the files or the manifest setting named (or use --force to load it anyway).' : ''}`,
      { problems: blocking.map((r) => r.problem), refusals: blocking },
    );
  }
  return verdict;
}

/** Only the postcodes a real share of the place's records carry (place-postcodes.ts): never a stray row's. */
function keptPostcodes(run: ImportRun, rows: PlaceRows): string[] {
  const held = placePostcodes(rows.addresses, rows.segments);
  if (held.left.length)
    run.progress(
      `${run.slug}: postcodes left out (too few of the ${held.records} records carrying one): ${held.left.map((l) => `${l.postcode} (${l.records})`).join(', ')}`,
    );
  return held.kept;
}

/**
 * Loads the place's rows: its boundary and postcodes (plain tables: replaced row by row), its zones, then
 * the lots with their facts while the other tables load beside them, each into the load's new partition
 * (`into`), which has no index yet: they are built once, after the load (finishPlaceLoad).
 */
async function loadPlaceTables(run: ImportRun, tx: Queryable, rows: PlaceRows, postcodes: string[], into: PlaceRelations): Promise<LotsLoaded> {
  const { slug } = run;
  const placeId = run.m.geoDivisionId;
  const progress = run.progress;
  await tx.query('DELETE FROM place_boundaries WHERE place_id = $1', [placeId]);
  await tx.query('DELETE FROM place_postcodes WHERE place_id = $1', [placeId]);
  if (rows.boundary) {
    await tx.query('INSERT INTO place_boundaries (place_id, geom, bbox) VALUES ($1, $2::json, $3::box)', [
      placeId,
      JSON.stringify(rows.boundary),
      boxLiteral(bboxOf(rows.boundary)),
    ]);
  }
  const z = await insertZones(tx, placeId, rows.zones, { into: into.zones });
  progress(`${slug}: loaded ${z} zones`);
  // Lot facts (district shares, overlays, frontage, depth, corner) are derived in memory and
  // written with the parcels: no second pass of UPDATEs over every parcel.
  const lots = await insertLotsWithFacts(tx, placeId, { parcels: rows.parcels.values(), zones: rows.zones, streets: rows.segments }, rows.parcels.values(), {
    into: into.parcels,
    onBatch: (n) => progress(`${slug}: parcels with lot facts ${n}/${rows.parcels.size}`),
    onProgress: progress,
    deriveIn: rows.parcels.size >= WORKER_DERIVE_MIN_PARCELS ? 'worker' : 'thread',
    // Tables that do not need the lot facts load while the lots are indexed.
    meanwhile: async () => {
      const a = await insertAddresses(tx, placeId, rows.addresses, {
        into: into.addresses,
        onBatch: (n) => progress(`${slug}: addresses ${n}/${rows.addresses.length}`),
      });
      progress(`${slug}: loaded ${a} addresses`);
      const s = await insertStreetSegments(tx, placeId, rows.segments, { into: into.street_segments });
      progress(`${slug}: loaded ${s} street segments`);
      if (rows.lotLocations.length)
        progress(`${slug}: loaded ${await insertLotLocations(tx, placeId, rows.lotLocations, { into: into.lot_locations })} lot locations`);
      if (postcodes.length) {
        await tx.query(`INSERT INTO place_postcodes (place_id, postcode, source) SELECT $1, pc, 'street_segments' FROM unnest($2::text[]) AS t(pc)`, [
          placeId,
          postcodes,
        ]);
      }
    },
  });
  progress(`${slug}: loaded ${lots.parcels} parcels and ${lots.shares} lot-district shares`);
  return lots;
}

/** The run's report: the sources' tallies, the tables' counts and join rates measured with SQL, and the gate's verdict. */
async function measuredReport(
  run: ImportRun,
  tx: Queryable,
  read: SourcesRead,
  lots: LotsLoaded,
  verdict: ReturnType<typeof placeVerdict>,
  tables: PlaceRelations,
): Promise<ImportReport> {
  const placeId = run.m.geoDivisionId;
  const warnings: string[] = [];
  const derive = lots.derive;
  if (derive.clipFailures)
    warnings.push(`${derive.clipFailures} lots could not be intersected exactly with their districts; they took their inside point's district`);
  const measured = await run.step('joinRates', () => measure(tx, placeId, tables));
  const finishedAt = run.ctx.clock.now().toISOString();
  const sources = read.tallies.map((t) => t.report());
  const sum = (k: 'rowsRead' | 'rowsLoaded' | 'rowsSkipped' | 'rowsRejected') => sources.reduce((acc, s) => acc + s[k], 0);
  const report: ImportReport = {
    slug: run.slug,
    placeId,
    changed: true,
    sourceDigest: run.sourceDigest,
    sourceDir: run.sourceDir,
    startedAt: run.startedAt,
    finishedAt,
    durationMs: Date.now() - run.started,
    sources,
    totals: { rowsRead: sum('rowsRead'), rowsLoaded: sum('rowsLoaded'), rowsSkipped: sum('rowsSkipped'), rowsRejected: sum('rowsRejected') },
    ...measured,
    ...(read.rows.addressLots ? { addressLots: read.rows.addressLots } : {}),
    timings: run.timings,
    warnings,
  };
  // The gate's numbers are the in-memory ones data check prints (place-gate.ts measureRows).
  if (verdict.gate) report.gate = verdict.gate;
  const shrank = verdict.refusals.filter((r) => r.shrink);
  if (shrank.length && run.opts.acceptShrink) {
    report.acceptedShrink = { reason: run.opts.acceptShrink, problems: shrank.map((r) => r.problem) };
    warnings.push(`accepted a shrunk layer (--accept-shrink "${run.opts.acceptShrink}"): ${shrank.map((r) => r.problem).join('; ')}`);
  }
  return report;
}

/** The place's status, box and last report; the run in import_runs; a dated vintage (each layer's file, its columns, the rules' digests, the change log). */
async function recordImport(run: ImportRun, tx: Queryable, report: ImportReport, bbox: BBox, columns: Record<string, string[]>): Promise<void> {
  const { m, placesDir, opts } = run;
  const placeId = m.geoDivisionId;
  const finishedAt = report.finishedAt;
  await tx.query(`UPDATE places SET status = $2, bbox = $3::box, imported_at = $4, import_report = $5::jsonb WHERE place_id = $1`, [
    placeId,
    effectiveStatus(m, true, report),
    boxLiteral(bbox),
    finishedAt,
    JSON.stringify(report),
  ]);
  await tx.query('INSERT INTO import_runs (place_id, started_at, finished_at, source_digest, changed, report) VALUES ($1, $2, $3, $4, true, $5::jsonb)', [
    placeId,
    run.startedAt,
    finishedAt,
    run.sourceDigest,
    JSON.stringify(report),
  ]);
  const vintage = await tx.query<{ vintage_id: number }>(
    'INSERT INTO place_vintages (place_id, imported_at, source_digest, layers, columns, rules_digests, changes) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb) RETURNING vintage_id',
    [
      placeId,
      finishedAt,
      run.sourceDigest,
      JSON.stringify(m.sources.map((s) => ({ id: s.id, name: s.name, file: s.file, sha256: s.sha256, vintage: s.vintage }))),
      JSON.stringify(columns),
      JSON.stringify(rulesDigests(m, placesDir)),
      opts.changeLog === undefined ? null : JSON.stringify(opts.changeLog),
    ],
  );
  await recordChangeEntries(tx, placeId, Number(vintage[0]!.vintage_id), opts.townVintage ?? finishedAt.slice(0, 10), finishedAt, opts.changeEntries ?? []);
}

/** The update's every change, one row each (place_changes), in chunks of one statement each. */
async function recordChangeEntries(
  tx: Queryable,
  placeId: string,
  vintageId: number,
  townVintage: string,
  importedAt: string,
  entries: NonNullable<ImportOptions['changeEntries']>,
): Promise<void> {
  const CHUNK = 2000;
  for (let at = 0; at < entries.length; at += CHUNK) {
    const rows = entries.slice(at, at + CHUNK).map((e, k) => ({ seq: at + k + 1, kind: e.kind, subject: e.subject, detail: e.detail }));
    await tx.query(
      `INSERT INTO place_changes (place_id, vintage_id, seq, kind, subject, detail, town_vintage, imported_at)
       SELECT $1, $2, x.seq, x.kind, x.subject, x.detail, $3, $4 FROM jsonb_to_recordset($5::jsonb) AS x(seq int, kind text, subject text, detail jsonb)`,
      [placeId, vintageId, townVintage, importedAt, JSON.stringify(rows)],
    );
  }
}
