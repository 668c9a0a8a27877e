// `siteline data audit <place> [--sample N] [--out FILE] [--json]`: the accuracy audit of an imported
// place on the local database (SITELINE_DATA_DIR or DATABASE_URL): every address of its address table
// through the geocoder, scored against the source's own lot join and the point-in-lot test, stored as
// the place's latest audit (shown on /coverage). Exit 0 ok; 2 unknown or unimported place, bad flag.
import fs from 'node:fs';
import path from 'node:path';
import { JSON_FLAG, UsageError, type Command, type CommandInput } from './command.ts';
import { err, out } from './output.ts';

async function runAudit({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const sample = flags.sample === undefined ? undefined : Number(flags.sample);
  if (sample !== undefined && (!Number.isSafeInteger(sample) || sample < 1)) throw new UsageError('--sample needs a whole number of addresses, at least 1');
  const missing = (await import('./local-database.ts')).missingDatabase(io.env);
  if (missing) return (err(io, `${io.errColour.red('error:')} siteline data audit: ${missing}`), 2);
  const [{ loadConfig }, { createLogger }, { openContext }, { SitelineError }, { auditPlace, auditAndSave }, { formatPlaceAudit }, { ensureCatalogue }] =
    await Promise.all([
      import('../config.ts'),
      import('../logger.ts'),
      import('../context.ts'),
      import('../core/errors.ts'),
      import('../importer/audit-place.ts'),
      import('../importer/audit-report.ts'),
      import('../importer/default-places.ts'),
    ]);
  const ctx = await openContext(loadConfig(io.env), { logger: createLogger('warn', io.stderr) });
  try {
    await ensureCatalogue(ctx);
    const started = Date.now();
    const onProgress = (msg: string) => err(io, `[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}`);
    // A sample is a quick look: the stored audit (the one /coverage shows) stays the full one.
    const audit = sample === undefined ? await auditAndSave(ctx, slug!, { onProgress }) : await auditPlace(ctx, slug!, { sample, onProgress });
    const json = JSON.stringify(audit, null, 2);
    if (typeof flags.out === 'string') {
      fs.writeFileSync(path.resolve(flags.out), json + '\n');
      err(io, `siteline data audit: written to ${path.resolve(flags.out)}`);
    }
    out(io, flags.json === true ? json : formatPlaceAudit(audit));
    return 0;
  } catch (e) {
    if (e instanceof SitelineError && (e.code === 'not_found' || e.code === 'bad_input')) {
      err(io, `${io.errColour.red('error:')} siteline data audit: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    await ctx.db.close();
  }
}

export const dataAuditCommand: Command = {
  name: 'audit',
  summary: "Accuracy report of an imported place: every address through the geocoder, against the source's own lots",
  usage: 'data audit <place> [--sample N] [--out FILE] [--json]',
  description:
    "Every distinct address of the place's address table goes through the geocoder as the snapshot calls it; the lot it answers is checked " +
    "against the source's own address -> lot join and, where the address has a point, the point-in-lot test. Prints rates by match type, " +
    'share right per confidence band, the addresses that cannot be checked, the worst disagreements and the data vintages, and stores the ' +
    "report as the place's latest audit (shown on /coverage). Imports rerun it. See docs/audit.md.",
  flags: [
    { name: 'sample', value: 'N', description: 'Audit N addresses spread evenly over the list instead of all (a quick look, not stored)' },
    { name: 'out', value: 'FILE', description: 'Also write the JSON report to FILE' },
    JSON_FLAG,
  ],
  args: { min: 1, max: 1, name: 'the place, e.g. siteline data audit cambridge-ma' },
  examples: ['siteline data audit cambridge-ma', 'siteline data audit cambridge-ma --json --out cambridge-audit.json'],
  run: runAudit,
};
