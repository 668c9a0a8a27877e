// On start: the catalogue rows come from the manifests, and an empty database (no place imported
// yet) gets every default place imported from the source directory, with progress in the log.
import fs from 'node:fs';
import type { AppContext } from '../context.ts';
import { syncCatalogue } from '../places/catalogue.ts';
import { loadAllManifests } from './manifest.ts';
import { importPlace } from './import-place.ts';
import { formatImportReport, type ImportReport } from './import-report.ts';

/** Upserts one catalogue row per manifest (keeps import state). Returns the number of places. */
export async function ensureCatalogue(ctx: AppContext): Promise<number> {
  return syncCatalogue(ctx.db, loadAllManifests());
}

export interface EnsureOptions {
  /** Where progress lines go (default: the logger). */
  onProgress?: (msg: string) => void;
}

/**
 * Syncs the catalogue, then, when no place has been imported and the source directory exists,
 * imports every manifest marked defaultImport. A place that fails to import is logged and left
 * `live_unavailable`; the service still starts.
 */
export async function ensureDefaultPlaces(ctx: AppContext, opts: EnsureOptions = {}): Promise<ImportReport[]> {
  const manifests = loadAllManifests();
  await syncCatalogue(ctx.db, manifests);
  const imported = await ctx.db.query('SELECT 1 FROM places WHERE imported_at IS NOT NULL LIMIT 1');
  if (imported.length > 0) return [];
  const dir = ctx.config.sourceDir;
  if (!dir || !fs.existsSync(dir)) {
    ctx.logger.warn({ sourceDir: dir ?? null }, 'no place imported and no source directory: places stay live_unavailable until `siteline data import <place> --from DIR`');
    return [];
  }
  const reports: ImportReport[] = [];
  for (const m of manifests.filter((x) => x.defaultImport)) {
    ctx.logger.info({ place: m.slug, sourceDir: dir }, 'importing default place');
    try {
      const r = await importPlace(ctx, m.slug, { sourceDir: dir, quiet: true, onProgress: opts.onProgress ?? ((msg) => ctx.logger.info({ place: m.slug }, msg)) });
      ctx.logger.info({ place: m.slug, report: { counts: r.counts, joinRates: r.joinRates, durationMs: r.durationMs } }, formatImportReport(r).split('\n')[0]!);
      reports.push(r);
    } catch (err) {
      ctx.logger.error({ place: m.slug, err: (err as Error).message }, 'default place import failed; the place stays unavailable');
    }
  }
  return reports;
}
