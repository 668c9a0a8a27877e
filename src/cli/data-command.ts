// `siteline data import <place> [--from DIR] [--force] [--json]` and `siteline data status [--json]`.
// Exit 0 ok; 2 bad input (unknown place, missing directory, checksum mismatch, bad manifest); 1 unexpected.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openContext } from '../service.ts';
import { SitelineError } from '../core/errors.ts';
import { importPlace } from '../importer/import-place.ts';
import { formatImportReport } from '../importer/import-report.ts';
import { listManifestSlugs } from '../importer/manifest.ts';
import { ensureCatalogue } from '../importer/default-places.ts';
import { listPlaces } from '../places/catalogue.ts';

const USAGE = `Usage:
  siteline data import <place> [--from DIR] [--force] [--json]   import a place's sources (default DIR: ../shared/data)
  siteline data status [--json]                                   places, coverage status, last import and row counts
Places: ${listManifestSlugs().join(', ')}
`;

interface ImportArgs {
  slug: string;
  from: string | undefined;
  force: boolean;
  json: boolean;
}

function parseImportArgs(argv: string[]): ImportArgs | string {
  let slug: string | undefined;
  let from: string | undefined;
  let force = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--from') {
      from = argv[++i];
      if (!from) return '--from needs a directory';
    } else if (a.startsWith('--from=')) from = a.slice('--from='.length);
    else if (a === '--force') force = true;
    else if (a === '--json') json = true;
    else if (a.startsWith('--')) return `unknown option ${a}`;
    else if (slug) return `one place at a time (got "${slug}" and "${a}")`;
    else slug = a;
  }
  if (!slug) return 'which place? e.g. siteline data import cambridge-ma';
  return { slug, from, force, json };
}

async function runImport(argv: string[]): Promise<number> {
  const args = parseImportArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(`siteline data import: ${args}\n\n${USAGE}`);
    return 2;
  }
  if (!listManifestSlugs().includes(args.slug)) {
    process.stderr.write(`siteline data import: no place "${args.slug}". Known places: ${listManifestSlugs().join(', ')}\n`);
    return 2;
  }
  if (args.from !== undefined && !fs.existsSync(path.resolve(args.from))) {
    process.stderr.write(`siteline data import: source directory ${path.resolve(args.from)} does not exist\n`);
    return 2;
  }
  const config = loadConfig();
  const ctx = await openContext(config, { logger: createLogger('warn', process.stderr) });
  try {
    const started = Date.now();
    const report = await importPlace(ctx, args.slug, {
      sourceDir: args.from,
      force: args.force,
      quiet: true,
      onProgress: (msg) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`),
    });
    process.stdout.write(args.json ? JSON.stringify(report, null, 2) + '\n' : formatImportReport(report));
    return 0;
  } catch (err) {
    if (err instanceof SitelineError && (err.code === 'bad_input' || err.code === 'not_found')) {
      process.stderr.write(`siteline data import: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await ctx.db.close();
  }
}

async function runStatus(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const bad = argv.find((a) => a !== '--json');
  if (bad) {
    process.stderr.write(`siteline data status: unexpected "${bad}"\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const ctx = await openContext(config, { logger: createLogger('warn', process.stderr) });
  try {
    await ensureCatalogue(ctx);
    const places = await listPlaces(ctx);
    const counts = await ctx.db.query<{ place_id: string; report: { counts?: Record<string, number>; durationMs?: number } | null }>(
      'SELECT place_id, import_report AS report FROM places',
    );
    const byId = new Map(counts.map((c) => [c.place_id, c.report]));
    if (json) {
      process.stdout.write(JSON.stringify(places.map((p) => ({ ...p, counts: byId.get(p.geoDivisionId)?.counts ?? null })), null, 2) + '\n');
      return 0;
    }
    const out: string[] = [`Database: ${ctx.db.kind}${ctx.db.kind === 'pglite' ? ` (${path.join(config.dataDir, 'pgdata')})` : ''}`, ''];
    for (const p of places) {
      const c = byId.get(p.geoDivisionId)?.counts;
      out.push(`${p.slug.padEnd(14)} ${p.geoDivisionId.padEnd(18)} ${p.status.padEnd(17)} ${p.importedAt ? `imported ${p.importedAt}` : 'not imported'}`);
      if (c) out.push(`${''.padEnd(15)}${c['addresses'] ?? 0} addresses, ${c['parcels'] ?? 0} parcels, ${c['zones'] ?? 0} zones, ${c['streetSegments'] ?? 0} street segments`);
      if (p.statusReason) out.push(`${''.padEnd(15)}${p.statusReason}`);
    }
    process.stdout.write(out.join('\n') + '\n');
    return 0;
  } finally {
    await ctx.db.close();
  }
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'import') return runImport(rest);
  if (sub === 'status') return runStatus(rest);
  if (!sub || sub === '--help' || sub === 'help') {
    process.stdout.write(USAGE);
    return sub ? 0 : 2;
  }
  process.stderr.write(`siteline data: unknown subcommand "${sub}"\n\n${USAGE}`);
  return 2;
}
