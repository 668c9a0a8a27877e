// On start: the catalogue rows come from the manifests, and every default place that is missing
// (never imported, or an import that died half-way) or stale (imported from another manifest or
// importer version) is imported from the source directory, with progress in the log. The same
// check feeds /readyz.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { syncCatalogue } from '../places/catalogue.ts';
import { loadAllManifests, type Manifest } from '../places/manifest.ts';
import { importDigest, importPlace } from './import-place.ts';
import { formatImportReport } from './import-report.ts';
import type { ImportReport } from '../places/import-report.ts';
import { beginStartupLoad, type PlaceLoadState, type StartupLoad } from '../places/place-loading.ts';

/** Upserts one catalogue row per manifest (keeps import state). Returns the number of places. */
export async function ensureCatalogue(ctx: AppContext): Promise<number> {
  return syncCatalogue(ctx, loadAllManifests(ctx.config.placesDir));
}

export interface EnsureOptions {
  /** Where progress lines go (default: the logger). */
  onProgress?: (msg: string) => void;
}

/** The command that loads a place, for every message that says a place is not loaded. */
function importCommand(slug: string): string {
  return `siteline data import ${slug} --from DIR`;
}

/** What to do when places are not loaded: one sentence naming the command and the variable. */
export function howToLoad(slugs: string[]): string {
  const which = slugs.length === 1 ? slugs[0]! : '<place>';
  return `Run \`${importCommand(which)}\` (DIR holds the place folders, e.g. ../shared/data), or set SITELINE_SOURCE_DIR=DIR and restart: missing places are imported at start.`;
}

/** Load state of every default place (manifests marked defaultImport), in manifest order. */
export async function defaultPlaceStates(
  ctx: Pick<AppContext, 'db' | 'config'>,
  manifests: Manifest[] = loadAllManifests(ctx.config.placesDir),
): Promise<PlaceLoadState[]> {
  const rows = await ctx.db.query<{ slug: string; imported_at: Date | string | null; digest: string | null; gate: string | null }>(
    `SELECT slug, imported_at, import_report->>'sourceDigest' AS digest, import_report->'gate'->>'passed' AS gate FROM places`,
  );
  const bySlug = new Map(rows.map((r) => [r.slug, r]));
  return manifests
    .filter((m) => m.defaultImport)
    .map((m) => {
      const row = bySlug.get(m.slug);
      const loaded = Boolean(row?.imported_at);
      return {
        slug: m.slug,
        manifestStatus: m.status,
        loaded,
        stale: loaded && row!.digest !== importDigest(m),
        importedAt: loaded ? new Date(row!.imported_at!).toISOString() : null,
        joinsTooPoor: loaded && row!.gate === 'false',
      };
    });
}

/** The source directory the service reads, or the one it looked for when there is none. */
function sourceDirOrDefault(ctx: Pick<AppContext, 'config'>): { dir: string; exists: boolean } {
  const dir = ctx.config.sourceDir ?? path.resolve(process.cwd(), '../shared/data');
  return { dir, exists: fs.existsSync(dir) && fs.statSync(dir).isDirectory() };
}

/**
 * Syncs the catalogue, then imports every default place that is missing or stale, when the source
 * directory exists; without it, one warning names the directory and the places left unloaded. A place
 * that fails to import is logged and left as it was (live_unavailable when it was never loaded); the
 * service still starts.
 */
export async function ensureDefaultPlaces(ctx: AppContext, opts: EnsureOptions = {}): Promise<ImportReport[]> {
  return (await planDefaultPlaces(ctx, opts))();
}

/**
 * ensureDefaultPlaces in two steps: the catalogue, the states and this start's queue now (so /readyz
 * and the snapshot say "loading" from the moment the server listens: src/service.ts), the imports when
 * the returned function runs.
 */
export async function planDefaultPlaces(ctx: AppContext, opts: EnsureOptions = {}): Promise<() => Promise<ImportReport[]>> {
  const manifests = loadAllManifests(ctx.config.placesDir);
  await syncCatalogue(ctx, manifests);
  const states = await defaultPlaceStates(ctx, manifests);
  // Live places first (the ones whose addresses are answered), then the others, each in manifest order.
  const todo = states.filter((p) => !p.loaded || p.stale).sort((a, b) => Number(b.manifestStatus === 'live') - Number(a.manifestStatus === 'live'));
  if (todo.length === 0) return async () => [];
  const { dir, exists } = sourceDirOrDefault(ctx);
  if (!exists) {
    warnUnloaded(ctx, todo, `the place data directory ${dir} does not exist`);
    return async () => [];
  }
  // One place at a time; each answers as soon as its import commits (place-loading.ts, /readyz).
  const load = beginStartupLoad(
    ctx.db,
    states,
    todo.map((p) => p.slug),
  );
  return () => importQueued(ctx, load, todo, dir, opts);
}

async function importQueued(ctx: AppContext, load: StartupLoad, todo: PlaceLoadState[], dir: string, opts: EnsureOptions): Promise<ImportReport[]> {
  const reports: ImportReport[] = [];
  try {
    for (const [i, p] of todo.entries()) {
      if (load.stopping) break;
      const entry = load.queue[i]!;
      entry.state = 'importing';
      entry.startedAt = new Date().toISOString();
      ctx.logger.info({ place: p.slug, sourceDir: dir, reason: p.loaded ? 'stale' : 'missing' }, 'importing default place');
      try {
        const r = await importPlace(ctx, p.slug, {
          sourceDir: dir,
          placesDir: ctx.config.placesDir,
          quiet: true,
          onProgress: opts.onProgress ?? ((msg) => ctx.logger.info({ place: p.slug }, msg)),
        });
        ctx.logger.info(
          { place: p.slug, report: { counts: r.counts, joinRates: r.joinRates, durationMs: r.durationMs } },
          formatImportReport(r).split('\n')[0]!,
        );
        reports.push(r);
        Object.assign(p, { loaded: true, stale: false, importedAt: r.finishedAt, joinsTooPoor: Boolean(r.gate && !r.gate.passed) });
        entry.state = 'ready';
        if (r.gate && !r.gate.passed)
          ctx.logger.warn({ place: p.slug, problems: r.gate.problems }, `${p.slug} is loaded but not live: its join rates are below the manifest's thresholds`);
      } catch (err) {
        entry.state = 'failed';
        entry.error = (err as Error).message;
        ctx.logger.error({ place: p.slug, err: (err as Error).message }, `default place import failed; the place stays as it was. ${howToLoad([p.slug])}`);
      }
      entry.finishedAt = new Date().toISOString();
    }
  } finally {
    load.done = true;
  }
  return reports;
}

/** At a start that imports nothing (auto-import off): still say which default places are not loaded. */
export async function warnIfPlacesMissing(ctx: AppContext): Promise<void> {
  const todo = (await defaultPlaceStates(ctx)).filter((p) => !p.loaded || p.stale);
  if (todo.length > 0) warnUnloaded(ctx, todo, 'automatic import is off (SITELINE_AUTO_IMPORT=0)');
}

function warnUnloaded(ctx: AppContext, todo: PlaceLoadState[], why: string): void {
  const missing = todo.filter((p) => !p.loaded).map((p) => p.slug);
  const stale = todo.filter((p) => p.stale).map((p) => p.slug);
  const live = todo.filter((p) => !p.loaded && p.manifestStatus === 'live').map((p) => p.slug);
  ctx.logger.warn(
    { sourceDir: sourceDirOrDefault(ctx).dir, missing, stale },
    `${why}: ${missing.length ? `places not loaded: ${missing.join(', ')}` : ''}${missing.length && stale.length ? '; ' : ''}${stale.length ? `stale: ${stale.join(', ')}` : ''}.` +
      `${live.length ? ` Addresses in ${live.join(', ')} cannot be answered and /readyz reports 503.` : ''} ${howToLoad(missing.length ? missing : stale)}`,
  );
}
