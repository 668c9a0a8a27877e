// `siteline data import <place> [--from DIR] [--force] [--json]` and `siteline data status [--json]`:
// work on the local database (SITELINE_DATA_DIR or DATABASE_URL), not through the service.
// Exit 0 ok; 2 bad input (unknown place, missing directory, checksum mismatch, bad manifest); 1 unexpected.
import fs from 'node:fs';
import path from 'node:path';
import type { Command, CommandInput } from './command.ts';

/** The database side, loaded only when a data command actually runs (help stays instant). */
async function databaseModules() {
  const [{ loadConfig }, { createLogger }, { openContext }, { SitelineError }, { importPlace }, { formatImportReport }, { ensureCatalogue }, { listPlaces }] = await Promise.all([
    import('../config.ts'),
    import('../logger.ts'),
    import('../service.ts'),
    import('../core/errors.ts'),
    import('../importer/import-place.ts'),
    import('../importer/import-report.ts'),
    import('../importer/default-places.ts'),
    import('../places/catalogue.ts'),
  ]);
  return { loadConfig, createLogger, openContext, SitelineError, importPlace, formatImportReport, ensureCatalogue, listPlaces };
}
import { JSON_FLAG } from './command.ts';
import { dataCheckCommand, dataInitCommand } from './data-init-command.ts';
import { err, out } from './output.ts';

async function runImport({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const { listManifestSlugs } = await import('../importer/manifest.ts');
  const { placesDirFromEnv } = await import('../config.ts');
  const known = listManifestSlugs(placesDirFromEnv(io.env));
  const args = { slug: slug!, from: flags.from as string | undefined, force: flags.force === true, json: flags.json === true };
  if (!known.includes(args.slug)) {
    err(io, `${io.errColour.red('error:')} siteline data import: no place "${args.slug}". Known places: ${known.join(', ')}`);
    return 2;
  }
  if (args.from !== undefined && !fs.existsSync(path.resolve(args.from))) {
    err(io, `${io.errColour.red('error:')} siteline data import: source directory ${path.resolve(args.from)} does not exist`);
    return 2;
  }
  const { loadConfig, createLogger, openContext, SitelineError, importPlace, formatImportReport } = await databaseModules();
  const config = loadConfig(io.env);
  const ctx = await openContext(config, { logger: createLogger('warn', io.stderr) });
  try {
    const started = Date.now();
    const report = await importPlace(ctx, args.slug, {
      sourceDir: args.from,
      placesDir: config.placesDir,
      force: args.force,
      quiet: true,
      audit: 'await', // the accuracy audit (siteline data audit) is rerun after the import, before the report
      onProgress: (msg) => err(io, `[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}`),
    });
    out(io, args.json ? JSON.stringify(report, null, 2) : formatImportReport(report));
    if (report.gate && !report.gate.passed) {
      err(io, `${io.errColour.red('error:')} siteline data import: ${args.slug} was loaded but is NOT live (planned_not_live): ${report.gate.problems.join('; ')}. Fix the joins (docs/data.md, "Going live") or lower the manifest's joinThresholds knowingly.`);
      return 1;
    }
    return 0;
  } catch (err) {
    if (err instanceof SitelineError && (err.code === 'bad_input' || err.code === 'not_found')) {
      io.stderr.write(`siteline data import: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await ctx.db.close();
  }
}

async function runStatus({ flags, io }: CommandInput): Promise<number> {
  const json = flags.json === true;
  const { loadConfig, createLogger, openContext, ensureCatalogue, listPlaces } = await databaseModules();
  const config = loadConfig(io.env);
  const ctx = await openContext(config, { logger: createLogger('warn', io.stderr) });
  try {
    await ensureCatalogue(ctx);
    const places = await listPlaces(ctx);
    const counts = await ctx.db.query<{ place_id: string; report: { counts?: Record<string, number>; durationMs?: number } | null }>(
      'SELECT place_id, import_report AS report FROM places',
    );
    const byId = new Map(counts.map((c) => [c.place_id, c.report]));
    if (json) {
      out(io, JSON.stringify(places.map((p) => ({ ...p, counts: byId.get(p.geoDivisionId)?.counts ?? null })), null, 2));
      return 0;
    }
    const lines: string[] = [`Database: ${ctx.db.kind}${ctx.db.kind === 'pglite' ? ` (${path.join(config.dataDir, 'pgdata')})` : ''}`, ''];
    for (const p of places) {
      const c = byId.get(p.geoDivisionId)?.counts;
      lines.push(`${p.slug.padEnd(14)} ${p.geoDivisionId.padEnd(18)} ${p.status.padEnd(17)} ${p.importedAt ? `imported ${p.importedAt}` : 'not imported'}`);
      if (c) lines.push(`${''.padEnd(15)}${c['addresses'] ?? 0} addresses, ${c['parcels'] ?? 0} parcels, ${c['zones'] ?? 0} zones, ${c['streetSegments'] ?? 0} street segments`);
      if (p.statusReason) lines.push(`${''.padEnd(15)}${p.statusReason}`);
    }
    out(io, lines.join('\n'));
    return 0;
  } finally {
    await ctx.db.close();
  }
}

export const dataCommand: Command = {
  name: 'data',
  summary: 'Add a place from its files, import place data into the local database, see what is loaded',
  usage: 'data <command> [flags]',
  description: 'init and check read files only; import and status work on the local database (SITELINE_DATA_DIR or DATABASE_URL), not through the service.',
  subcommands: [
    dataInitCommand,
    dataCheckCommand,
    {
      name: 'import',
      summary: "Import a place's sources into the local database (progress on stderr)",
      usage: 'data import <place> [--from DIR] [--force] [--json]',
      description: 'DIR defaults to SITELINE_SOURCE_DIR, else ../shared/data.',
      details: async () => `Places: ${(await import('../importer/manifest.ts')).listManifestSlugs().join(', ')}`,
      flags: [
        { name: 'from', value: 'DIR', description: 'Directory holding the place sources' },
        { name: 'force', description: 'Import again even when the sources are unchanged' },
        JSON_FLAG,
      ],
      args: { min: 1, max: 1, name: 'the place, e.g. siteline data import cambridge-ma' },
      examples: ['siteline data import cambridge-ma', 'siteline data import saanich-bc --from ~/siteline-data'],
      run: runImport,
    },
    {
      name: 'status',
      summary: 'Places, coverage status, last import and row counts',
      usage: 'data status [--json]',
      flags: [JSON_FLAG],
      run: runStatus,
    },
  ],
};
