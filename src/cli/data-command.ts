// `siteline data import <place> [--from DIR] [--force] [--json]` and `siteline data status [--json]`:
// work on the local database (SITELINE_DATA_DIR or DATABASE_URL), not through the service. Only
// `data import` creates an embedded database where there is none; the others refuse (local-database.ts).
// Exit 0 ok; 2 bad input (unknown place, missing directory, checksum mismatch, bad manifest); 1 unexpected.
import fs from 'node:fs';
import path from 'node:path';
import type { Command, CommandInput } from './command.ts';

/** The database side, loaded only when a data command actually runs (help stays instant). */
async function databaseModules() {
  const [{ loadConfig }, { createLogger }, { openContext }, { SitelineError }, { importPlace }, { formatImportReport }, { listPlaces }] = await Promise.all([
    import('../config.ts'),
    import('../logger.ts'),
    import('../context.ts'),
    import('../core/errors.ts'),
    import('../importer/import-place.ts'),
    import('../importer/import-report.ts'),
    import('../places/catalogue.ts'),
  ]);
  return { loadConfig, createLogger, openContext, SitelineError, importPlace, formatImportReport, listPlaces };
}
import { JSON_FLAG } from './command.ts';
import { dataCheckCommand, dataInitCommand } from './data-init-command.ts';
import { err, out } from './output.ts';

/** `--accept-shrink "<reason>"`: undefined when absent, '' when given without a reason (refused). */
function acceptShrinkFlag(flags: CommandInput['flags']): string | undefined {
  const v = flags['accept-shrink'];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v.trim() : '';
}

const ACCEPT_SHRINK_FLAG = {
  name: 'accept-shrink',
  value: 'REASON',
  description: 'Load a layer that lost more than its maxShrinkShare (default 5 %) of its recorded rows or features; the reason is kept with the import',
};

async function runImport({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const { listManifestSlugs } = await import('../places/manifest.ts');
  const { placesDirFromEnv } = await import('../config.ts');
  const known = listManifestSlugs(placesDirFromEnv(io.env));
  const args = {
    slug: slug!,
    from: flags.from as string | undefined,
    force: flags.force === true,
    json: flags.json === true,
    acceptShrink: acceptShrinkFlag(flags),
  };
  if (args.acceptShrink === '') {
    err(
      io,
      `${io.errColour.red('error:')} siteline data import: --accept-shrink needs a reason, e.g. --accept-shrink "the town removed the condominium units"`,
    );
    return 2;
  }
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
      ...(args.acceptShrink ? { acceptShrink: args.acceptShrink } : {}),
      quiet: true,
      audit: 'await', // the accuracy audit (siteline data audit) is rerun after the import, before the report
      onProgress: (msg) => err(io, `[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}`),
    });
    out(io, args.json ? JSON.stringify(report, null, 2) : formatImportReport(report));
    if (report.gate && !report.gate.passed) {
      err(
        io,
        `${io.errColour.red('error:')} siteline data import: ${args.slug} was loaded but is NOT live (planned_not_live): ${report.gate.problems.join('; ')}. Fix the joins (docs/data.md, "Going live") or lower the manifest's joinThresholds knowingly.`,
      );
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

// Long because: the update's steps in order (read the files, compare, preview, confirm, import), each refusal exiting before anything changes.
async function runUpdate({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const { listManifestSlugs, manifestPath } = await import('../places/manifest.ts');
  const { placesDirFromEnv } = await import('../config.ts');
  const known = listManifestSlugs(placesDirFromEnv(io.env));
  if (!known.includes(slug!)) {
    err(io, `${io.errColour.red('error:')} siteline data update: no place "${slug}". Known places: ${known.join(', ')}`);
    return 2;
  }
  const from = flags.from as string | undefined;
  const acceptShrink = acceptShrinkFlag(flags);
  if (acceptShrink === '') {
    err(
      io,
      `${io.errColour.red('error:')} siteline data update: --accept-shrink needs a reason, e.g. --accept-shrink "the town removed the condominium units"`,
    );
    return 2;
  }
  if (from !== undefined && !fs.existsSync(path.resolve(from))) {
    err(io, `${io.errColour.red('error:')} siteline data update: source directory ${path.resolve(from)} does not exist`);
    return 2;
  }
  const missing = (await import('./local-database.ts')).missingDatabase(io.env);
  if (missing) return (err(io, `${io.errColour.red('error:')} siteline data update: ${missing}`), 2);
  const { loadConfig, createLogger, openContext, SitelineError, importPlace, formatImportReport } = await databaseModules();
  const { planUpdate, formatChangeLog } = await import('../importer/update-place.ts');
  const { formatVerdict } = await import('../importer/place-gate.ts');
  const config = loadConfig(io.env);
  const ctx = await openContext(config, { logger: createLogger('warn', io.stderr) });
  const json = flags.json === true;
  try {
    const plan = await planUpdate(ctx, slug!, {
      ...(from ? { sourceDir: from } : {}),
      placesDir: config.placesDir,
      ...(typeof flags.vintage === 'string' ? { vintage: flags.vintage } : {}),
      ...(acceptShrink ? { acceptShrink } : {}),
    });
    if (plan.unchanged) {
      out(io, json ? JSON.stringify({ slug, changed: false }, null, 2) : `${slug}: no file changed since the last import; nothing to do.`);
      return 0;
    }
    const text = [
      `Update ${slug} (files in ${plan.check.placeRoot}); nothing is written until you confirm:`,
      ...formatChangeLog(plan.changes),
      ...formatVerdict(plan.check.verdict, 'check'),
    ].join('\n');
    const verdict = plan.check.verdict.verdict;
    const passes = verdict === 'live' || verdict === 'planned';
    if (!json) out(io, text);
    if (!passes) {
      if (json) err(io, text); // --json with a failure: nothing on stdout, the changes and the reason on stderr
      err(
        io,
        `${io.errColour.red('error:')} siteline data update: ${slug}: the new files do not pass the gate (${verdict === 'refused' ? 'refused' : 'the joins are below the thresholds'}); nothing was imported and the previous import stays live.`,
      );
      return 1;
    }
    let yes = flags.yes === true;
    if (!yes && process.stdin.isTTY) {
      const readline = await import('node:readline/promises');
      const rl = readline.createInterface({ input: process.stdin, output: io.stderr });
      try {
        yes = /^y(es)?$/i.test((await rl.question(`Import these files as ${slug}'s vintage ${plan.changes.vintage}? [y/N] `)).trim());
      } finally {
        rl.close();
      }
    }
    if (!yes) {
      if (json) err(io, text); // --json with a failure: nothing on stdout, the changes and the reason on stderr
      err(io, `siteline data update: nothing imported (not confirmed; pass --yes in scripts). The previous import stays live.`);
      return 1;
    }
    // Confirmed: the new checksums, vintages and followed renames go into the manifest, then the import;
    // if the import fails, the manifest is put back as it was and the previous import stays.
    const file = manifestPath(slug!, config.placesDir);
    const before = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, plan.manifestText);
    try {
      const started = Date.now();
      const report = await importPlace(ctx, slug!, {
        ...(from ? { sourceDir: from } : {}),
        placesDir: config.placesDir,
        quiet: true,
        changeLog: plan.changes,
        changeEntries: plan.entries,
        townVintage: plan.changes.vintage,
        ...(acceptShrink ? { acceptShrink } : {}),
        onProgress: (msg) => err(io, `[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}`),
      });
      out(io, json ? JSON.stringify({ slug, changed: true, imported: true, changes: plan.changes, report }, null, 2) : formatImportReport(report));
      if (report.gate && !report.gate.passed) return 1;
      if (!json) out(io, `${slug}: vintage ${plan.changes.vintage} is live; its change log is on /coverage/${slug}.`);
      return 0;
    } catch (e) {
      fs.writeFileSync(file, before);
      throw e;
    }
  } catch (e) {
    if (e instanceof SitelineError && (e.code === 'bad_input' || e.code === 'not_found')) {
      err(io, `${io.errColour.red('error:')} siteline data update: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    await ctx.db.close();
  }
}

async function runStatus({ flags, io }: CommandInput): Promise<number> {
  const json = flags.json === true;
  // Never a new, empty database: status reads one that exists (issue 47); `data import` creates one.
  const missing = (await import('./local-database.ts')).missingDatabase(io.env);
  if (missing) return (err(io, `${io.errColour.red('error:')} siteline data status: ${missing}`), 2);
  const { loadConfig, createLogger, openContext, listPlaces } = await databaseModules();
  const { listManifestSlugs, loadManifest } = await import('../places/manifest.ts');
  const { syncCatalogue } = await import('../places/catalogue.ts');
  const { FAILED_RUN } = await import('../importer/import-place.ts');
  const { placePlaceholders } = await import('../importer/place-gate.ts');
  const config = loadConfig(io.env);
  const ctx = await openContext(config, { logger: createLogger('warn', io.stderr) });
  try {
    // Every place with a manifest, including one whose manifest does not load (listed with why).
    const manifests = [];
    const broken: { slug: string; reason: string }[] = [];
    for (const slug of listManifestSlugs(config.placesDir)) {
      try {
        manifests.push(loadManifest(slug, config.placesDir));
      } catch (e) {
        broken.push({ slug, reason: (e as Error).message.split('\n').slice(0, 3).join(' ') });
      }
    }
    await syncCatalogue(ctx, manifests);
    const places = await listPlaces(ctx);
    const counts = await ctx.db.query<{ place_id: string; report: { counts?: Record<string, number>; durationMs?: number } | null }>(
      'SELECT place_id, import_report AS report FROM places',
    );
    const byId = new Map(counts.map((c) => [c.place_id, c.report]));
    // The latest run of each place, when it failed: its reason (the previous data, if any, stays live).
    const runs = await ctx.db.query<{ place_id: string; source_digest: string; finished_at: unknown; report: { reason?: string } }>(
      'SELECT r.place_id, r.source_digest, r.finished_at, r.report FROM import_runs r WHERE r.run_id = (SELECT max(run_id) FROM import_runs x WHERE x.place_id = r.place_id)',
    );
    const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
    const failed = new Map(
      runs.filter((r) => r.source_digest === FAILED_RUN).map((r) => [r.place_id, { at: iso(r.finished_at), reason: r.report?.reason ?? 'unknown' }]),
    );
    const bySlug = new Map(manifests.map((m) => [m.slug, m]));
    const placeholders = new Map(places.map((p) => [p.slug, bySlug.get(p.slug) ? placePlaceholders(bySlug.get(p.slug)!, config.placesDir) : []]));
    if (json) {
      out(
        io,
        JSON.stringify(
          [
            ...places.map((p) => ({
              ...p,
              counts: byId.get(p.geoDivisionId)?.counts ?? null,
              lastImportFailed: failed.get(p.geoDivisionId) ?? null,
              placeholders: placeholders.get(p.slug) ?? [],
            })),
            ...broken.map((b) => ({ slug: b.slug, status: 'manifest_invalid', statusReason: b.reason })),
          ],
          null,
          2,
        ),
      );
      return 0;
    }
    const lines: string[] = [`Database: ${ctx.db.kind}${ctx.db.kind === 'pglite' ? ` (${path.join(config.dataDir, 'pgdata')})` : ''}`, ''];
    for (const p of places) {
      const c = byId.get(p.geoDivisionId)?.counts;
      lines.push(`${p.slug.padEnd(14)} ${p.geoDivisionId.padEnd(18)} ${p.status.padEnd(17)} ${p.importedAt ? `imported ${p.importedAt}` : 'not imported'}`);
      if (c)
        lines.push(
          `${''.padEnd(15)}${c['addresses'] ?? 0} addresses, ${c['parcels'] ?? 0} parcels, ${c['zones'] ?? 0} zones, ${c['streetSegments'] ?? 0} street segments`,
        );
      if (p.statusReason) lines.push(`${''.padEnd(15)}${p.statusReason}`);
      const f = failed.get(p.geoDivisionId);
      if (f) {
        lines.push(`${''.padEnd(15)}LAST IMPORT FAILED at ${f.at}${p.importedAt ? ' (the previous import stays)' : ''}:`);
        for (const l of f.reason.split('\n').slice(0, 12)) lines.push(`${''.padEnd(17)}${l}`);
      }
      const ph = placeholders.get(p.slug) ?? [];
      if (ph.length) lines.push(`${''.padEnd(15)}${ph.length} placeholder(s) to replace before it can go live, e.g. ${ph[0]}`);
    }
    for (const b of broken) {
      lines.push(`${b.slug.padEnd(14)} ${'?'.padEnd(18)} ${'manifest_invalid'.padEnd(17)} not imported`);
      lines.push(`${''.padEnd(15)}${b.reason}`);
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
      details: async (io) => {
        const [{ placesDirFromEnv }, { listManifestSlugs }] = await Promise.all([import('../config.ts'), import('../places/manifest.ts')]);
        return `Places: ${listManifestSlugs(placesDirFromEnv(io.env)).join(', ')}`;
      },
      flags: [
        { name: 'from', value: 'DIR', description: 'Directory holding the place sources' },
        { name: 'force', description: 'Import again even when the sources are unchanged' },
        ACCEPT_SHRINK_FLAG,
        JSON_FLAG,
      ],
      args: { min: 1, max: 1, name: 'the place, e.g. siteline data import cambridge-ma' },
      examples: ['siteline data import cambridge-ma', 'siteline data import saanich-bc --from ~/siteline-data'],
      run: runImport,
    },
    {
      name: 'update',
      summary: 'Accept files the town republished: show what changed, then import them as a new vintage',
      usage: 'data update <place> [--from DIR] [--vintage DATE] [--yes] [--json]',
      description:
        'Finds the files whose sha256 changed, follows a column renamed in a new file (reported as renamed),\n' +
        'checks the new files with the same gate as data check and import, and shows what would change\n' +
        'against the live import (rows and features per layer before and after, addresses added / removed,\n' +
        'lots added / removed / split / merged, lots whose zone or area changed, districts added, removed or\n' +
        'whose rules changed) before anything is written. A layer that lost more than its maxShrinkShare\n' +
        '(default 5 %) or ends mid-record is refused (--accept-shrink "<reason>" for a real shrink). On confirmation (--yes in scripts)\n' +
        'it writes the new checksums and vintages into the manifest and imports; the previous import stays\n' +
        'live unless the new files pass the gate. Exit 0 imported or nothing changed, 1 not confirmed or\n' +
        'not passing the gate (nothing imported), 2 bad input.',
      flags: [
        { name: 'from', value: 'DIR', description: 'Directory holding the place sources (default SITELINE_SOURCE_DIR)' },
        { name: 'vintage', value: 'DATE', description: 'The vintage of the changed files (default: today)' },
        { name: 'yes', description: 'Import without asking (scripts)' },
        ACCEPT_SHRINK_FLAG,
        JSON_FLAG,
      ],
      args: { min: 1, max: 1, name: 'the place, e.g. siteline data update testville-ma --from ~/towns' },
      examples: ['siteline data update testville-ma --from ~/towns --yes'],
      run: runUpdate,
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
