// `siteline data init <slug> --from DIR --name "<Town>" --region <ST> --country <US|CA>`: inspects a
// town's files and writes <places dir>/<slug>/manifest.json and a rules.json skeleton, printing what it
// guessed, why, and what to confirm. `siteline data check <slug> --from DIR`: the join-rate report of a
// manifest against its files, without writing the database. Neither needs a database or a login.
import fs from 'node:fs';
import path from 'node:path';
import type { Command, CommandInput } from './command.ts';
import { JSON_FLAG, UsageError } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { err, out } from './output.ts';

// Long because: the init's steps in order (inspect, draft, settle, write), each refusal exiting before anything is written.
async function runInit({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const from = flags.from as string | undefined;
  const name = flags.name as string | undefined;
  const region = (flags.region as string | undefined)?.toUpperCase();
  const country = (flags.country as string | undefined)?.toUpperCase();
  if (!/^[a-z0-9-]+$/.test(slug!)) throw new UsageError(`"${slug}" is not a place slug (lower-case letters, digits and dashes, e.g. hopkinton-ma)`);
  if (!from) throw new UsageError("--from DIR is required (the folder holding the town's files)");
  if (!name) throw new UsageError('--name "<Town>" is required');
  if (!region || !/^[A-Z]{2}$/.test(region)) throw new UsageError('--region is the two-letter state or province code (e.g. MA, BC)');
  if (country !== 'US' && country !== 'CA') throw new UsageError('--country is US or CA');
  const dir = path.resolve(from);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    err(io, `${io.errColour.red('error:')} siteline data init: ${dir} is not a directory`);
    return EXIT.usage;
  }
  const { placesDirFromEnv } = await import('../config.ts');
  const placesDir = placesDirFromEnv(io.env);
  const target = path.join(placesDir, slug!);
  if (fs.existsSync(path.join(target, 'manifest.json')) && flags.force !== true) {
    err(
      io,
      `${io.errColour.red('error:')} siteline data init: ${path.join(target, 'manifest.json')} exists; pass --force to overwrite it (and its rules.json)`,
    );
    return EXIT.usage;
  }
  const { inspectSourceDir } = await import('../importer/inspect-source.ts');
  const { draftPlace, formatInspection } = await import('../importer/draft-place.ts');
  const { parseManifest } = await import('../places/manifest.ts');
  const { placeRulesSchema } = await import('../core/rules-schema.ts');
  // Re-initialising a place: its rules' districts tell the district field by its values.
  let knownDistricts: string[] | undefined;
  try {
    const old = JSON.parse(fs.readFileSync(path.join(target, 'rules.json'), 'utf8')) as { districts?: object; notes?: string[] };
    // A skeleton data init wrote holds whatever field it picked then: only a written rules file counts.
    if (!(old.notes ?? []).some((n) => n.startsWith('Skeleton written by siteline data init'))) knownDistricts = Object.keys(old.districts ?? {});
  } catch {
    knownDistricts = undefined; // no rules file yet (a new place) or not readable as one: the district field is told by its values alone
  }
  const ins = await inspectSourceDir(dir, { ...(knownDistricts?.length ? { knownDistricts } : {}) });
  const provenance = {
    ...(typeof flags.vintage === 'string' ? { vintage: flags.vintage } : {}),
    ...(typeof flags.licence === 'string' ? { licence: flags.licence } : {}),
    ...(typeof flags.attribution === 'string' ? { attribution: flags.attribution } : {}),
  };
  const given = Object.keys(provenance);
  if (given.length === 3) ins.confirm = ins.confirm.filter((c) => !c.startsWith("each source's vintage"));
  else if (given.length)
    ins.confirm = ins.confirm.map((c) =>
      c.startsWith("each source's vintage")
        ? `each source's ${['vintage', 'licence', 'attribution'].filter((k) => !given.includes(k)).join(' and ')} (written as "TO CONFIRM"; a place with a placeholder cannot go live)`
        : c,
    );
  else
    ins.confirm = ins.confirm.map((c) =>
      c.startsWith("each source's vintage") ? `${c}; a place with a placeholder cannot go live: pass --vintage, --licence and --attribution, or edit them` : c,
    );
  if (ins.refusal) {
    out(io, formatInspection(ins));
    err(
      io,
      `${io.errColour.red('error:')} siteline data init: ${ins.refusal}; nothing written (init never drafts another layer as the districts in its place). Mend or remove the file and run init again.`,
    );
    return EXIT.usage;
  }
  const { manifest, rules } = draftPlace(ins, { slug: slug!, name, region, country, provenance });
  let report = formatInspection(ins);
  if ((manifest['sources'] as unknown[]).length === 0) {
    out(io, flags.json === true ? JSON.stringify({ written: false, manifest, rules }, null, 2) : report);
    err(io, 'siteline data init: nothing written: no zoning, parcel or address layer could be mapped (see Confirm above)');
    return EXIT.usage;
  }
  const manifestText = JSON.stringify(manifest, null, 2) + '\n';
  try {
    parseManifest(manifestText, 'the drafted manifest');
  } catch (e) {
    out(io, report);
    err(io, `${io.errColour.red('error:')} siteline data init: the drafted manifest is not valid, nothing written: ${(e as Error).message}`);
    return EXIT.failure;
  }
  const checked = placeRulesSchema.safeParse(rules);
  if (!checked.success) {
    err(io, `${io.errColour.red('error:')} siteline data init: the drafted rules file is not valid, nothing written: ${checked.error.issues[0]?.message}`);
    return EXIT.failure;
  }
  fs.mkdirSync(target, { recursive: true });
  fs.writeFileSync(path.join(target, 'manifest.json'), manifestText);
  fs.writeFileSync(path.join(target, 'rules.json'), JSON.stringify(rules, null, 2) + '\n');
  // What data check will say of the draft, measured now: the counts recorded, each setting the check
  // would refuse set to the measured figure (and listed under Confirm), anything else listed.
  const { settleDraft } = await import('../importer/settle-draft.ts');
  const settled = await settleDraft(manifest, { dir, placesDir });
  ins.confirm.push(...settled.confirm);
  fs.writeFileSync(path.join(target, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  report = formatInspection(ins);
  if (flags.json === true) {
    out(io, JSON.stringify({ written: true, dir: target, manifest, rules, confirm: ins.confirm }, null, 2));
    return EXIT.ok;
  }
  out(io, report);
  out(
    io,
    `Wrote ${path.join(target, 'manifest.json')} and rules.json (${Object.keys(rules['districts'] as object).length} districts, every value not_extracted).`,
  );
  out(io, `Next: edit what is listed under "Confirm", then\n  siteline data check ${slug} --from ${dir}\n  siteline data import ${slug} --from ${dir}`);
  return EXIT.ok;
}

async function runCheck({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const { placesDirFromEnv, loadConfig } = await import('../config.ts');
  const { listManifestSlugs } = await import('../places/manifest.ts');
  const { SitelineError } = await import('../core/errors.ts');
  const { checkPlaceJoins, formatJoinCheck } = await import('../importer/check-joins.ts');
  const placesDir = placesDirFromEnv(io.env);
  if (!listManifestSlugs(placesDir).includes(slug!)) {
    err(
      io,
      `${io.errColour.red('error:')} siteline data check: no place "${slug}" in ${placesDir}. Known places: ${listManifestSlugs(placesDir).join(', ') || '(none)'}`,
    );
    return EXIT.usage;
  }
  const from = (flags.from as string | undefined) ?? loadConfig(io.env).sourceDir;
  try {
    const c = await checkPlaceJoins(slug!, { sourceDir: from, placesDir });
    out(io, flags.json === true ? JSON.stringify(c, null, 2) : formatJoinCheck(c));
    // The one gate data import applies: refused or not live is exit 1.
    return c.verdict.verdict === 'refused' || c.verdict.verdict === 'not_live' ? EXIT.failure : EXIT.ok;
  } catch (e) {
    if (e instanceof SitelineError && (e.code === 'bad_input' || e.code === 'not_found')) {
      err(io, `${io.errColour.red('error:')} siteline data check: ${e.message}`);
      return EXIT.usage;
    }
    throw e;
  }
}

export const dataInitCommand: Command = {
  name: 'init',
  summary: "Draft a place's manifest and rules skeleton from a folder of the town's files",
  usage:
    'data init <slug> --from DIR --name "<Town>" --region <ST> --country <US|CA> [--vintage DATE] [--licence TEXT] [--attribution TEXT] [--force] [--json]',
  description:
    'Reads every GeoJSON, TopoJSON, CSV and shapefile in DIR (formats, layers, fields with samples, the CRS\n' +
    'from a .prj, a GeoJSON crs member or the coordinate ranges, address columns, join keys ranked by\n' +
    'measured overlap, the point-in-parcel join) and writes <places dir>/<slug>/manifest.json and\n' +
    "rules.json (SITELINE_PLACES_DIR, else the repository's places/). Prints each guess, why, and what to\n" +
    'confirm. Writes no database. Exit 0 written, 2 bad input or nothing loadable found.',
  flags: [
    { name: 'from', value: 'DIR', description: "The folder holding the town's files (becomes the manifest's sourceFolder)" },
    { name: 'name', value: 'TOWN', description: 'The place name, e.g. "Hopkinton"' },
    { name: 'region', value: 'ST', description: 'Two-letter state or province code' },
    { name: 'country', value: 'US|CA', description: 'US or CA' },
    { name: 'vintage', value: 'DATE', description: "When the town published the files (written as every source's vintage)" },
    { name: 'licence', value: 'TEXT', description: 'The files\' licence, e.g. "Public domain (town open data)"' },
    { name: 'attribution', value: 'TEXT', description: 'The attribution the town requires, e.g. "Town of Testville GIS"' },
    { name: 'force', description: 'Overwrite an existing manifest.json and rules.json' },
    JSON_FLAG,
  ],
  args: { min: 1, max: 1, name: 'the new place slug, e.g. siteline data init hopkinton-ma --from ~/hopkinton ...' },
  examples: ['siteline data init hopkinton-ma --from ~/data/hopkinton-ma --name Hopkinton --region MA --country US'],
  run: runInit,
};

export const dataCheckCommand: Command = {
  name: 'check',
  summary: "Measure a place's joins against its files without writing the database",
  usage: 'data check <slug> [--from DIR] [--json]',
  description:
    'Reads the sources as the import would and prints address -> lot (by id and by point, and where they\n' +
    "disagree), lot -> zone and lot -> overlay, and whether the place would go live under its manifest's\n" +
    'joinThresholds. Exit 0 passes, 1 a checksum mismatch or joins below the thresholds, 2 bad input.',
  flags: [{ name: 'from', value: 'DIR', description: 'Directory holding the place folder, or the folder itself (default SITELINE_SOURCE_DIR)' }, JSON_FLAG],
  args: { min: 1, max: 1, name: 'the place, e.g. siteline data check hopkinton-ma --from ~/data' },
  run: runCheck,
};
