// `siteline check "<address>"`: one snapshot. By default from a running siteline service, on the
// logged-in identity, through the MCP tool getFeasibilitySnapshot (the same JSON an agent gets);
// with --local, computed in-process on the local database (the service must not hold it).
// Exit 0 answered, 3 not covered (answered: false), 2 bad input or usage, 4 login needed, 5 unreachable.
import { matchDoubt } from '../snapshot/match-doubt.ts';
import type { Command } from './command.ts';
import { JSON_FLAG, URL_FLAG, UsageError } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { err, out, progress, type Io, type Palette } from './output.ts';
import { ServiceClient, ServiceUnreachableError } from './service-client.ts';
import { valueWords } from '../core/value-words.ts';
import type { Snapshot } from '../core/snapshot-types.ts';
import { citationOf, conditionOf, notesOf, primaryDistrict, snapshotInputOf, sourceOf } from '../snapshot/refs.ts';

/** The tool's `source` argument: attribution only, the payload is the same for every value. */
const TOOL_SOURCE = 'full';

type Outcome = { snapshot: Snapshot } | { error: { code: string; message: string } };

/**
 * What the caller states beside the address: the district, building type and conditions (--district /
 * --building-type / --condition, a place without a zoning map) and the lot meant (--lot, a weak match).
 */
type Stated = { district?: string; buildingType?: string; conditions?: string[]; lotId?: string };

async function remoteSnapshot(io: Io, address: string, url: string | undefined, stated: Stated): Promise<Outcome> {
  const client = ServiceClient.forUser({ url, env: io.env });
  const waiting = progress(io, `Asking ${client.url}...`);
  try {
    // A terminal or a file is not a model's context: the CLI asks for the sources in full (docs/snapshot.md, "Sources").
    const answer = await client.callTool('getFeasibilitySnapshot', { address, source: TOOL_SOURCE, includeSources: true, ...stated });
    if (!answer.isError && answer.structured) return { snapshot: answer.structured as unknown as Snapshot };
    const code = (answer.structured?.error as { code?: string } | undefined)?.code;
    // No district stated in a place without a zoning map: the lot and the choices, as a local answer gives them.
    if (code === 'district_required')
      return {
        error: {
          code: 'district_required',
          message: `${answer.text.replace(/ Ask the user \(.*$/, '')} Run again with --district D${/buildingType/.test(answer.text) ? ' (and --building-type T)' : ''}.`,
        },
      };
    // bad_input from the core, or the tool's own argument validation: both are the caller's input.
    if (code === 'bad_input' || /^Invalid arguments/.test(answer.text)) return { error: { code: 'bad_input', message: answer.text } };
    return { error: { code: code ?? 'tool_error', message: answer.text } };
  } catch (e) {
    if (e instanceof ServiceUnreachableError) {
      e.message += `\nOr answer from the local database: siteline check --local "${address}"`;
    }
    throw e;
  } finally {
    waiting.stop();
    await client.close();
  }
}

async function localSnapshot(io: Io, address: string, stated: Stated): Promise<Outcome> {
  const waiting = progress(io, 'Opening the local database...');
  const { loadConfig } = await import('../config.ts');
  const { createLogger } = await import('../logger.ts');
  const { openContext } = await import('../context.ts');
  const { SitelineError } = await import('../core/errors.ts');
  const { getFeasibilitySnapshot } = await import('../snapshot/snapshot.ts');
  const config = loadConfig(io.env);
  try {
    // One answer, then exit: read through SQL rather than load the place's hot index first.
    const ctx = await openContext(config, { logger: createLogger('warn', io.stderr), hotIndex: false });
    try {
      if (config.autoImport) {
        const { ensureDefaultPlaces } = await import('../importer/default-places.ts');
        await ensureDefaultPlaces(ctx);
      }
      const { withSourcesInline } = await import('../snapshot/source-catalogue.ts');
      return { snapshot: await withSourcesInline(ctx, await getFeasibilitySnapshot(ctx, address, stated)) };
    } catch (e) {
      if (e instanceof SitelineError && e.code === 'bad_input') return { error: { code: e.code, message: e.message } };
      throw e;
    } finally {
      await ctx.db.close();
    }
  } finally {
    waiting.stop();
  }
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'Site snapshot for one address: lot, zoning, envelope, each value with its status',
  usage: 'check "<address>" [--lot ID] [--district D [--building-type T [--condition "NAME=VALUE"]...]] [--json] [--url URL | --local]',
  description:
    'Asks the siteline service (the MCP tool getFeasibilitySnapshot) as the logged-in user: run\n' +
    '`siteline login` once first. --json prints exactly the JSON the tool returns. With --local the\n' +
    'answer is computed in this process on the local database instead (no login; stop the server\n' +
    'first when it uses the same embedded database).\n\n' +
    'In a place without a zoning map (Somerville, MA) the district is never guessed: give it with\n' +
    "--district (and --building-type where the district zones by building type), as the City's\n" +
    'official zoning map shows it; without it the answer gives the lot and lists the districts.\n' +
    "Where the building type's table states values under conditions siteline cannot read from its\n" +
    'data (driveway access, alley, ...), give each with --condition "NAME=VALUE" (repeatable; the\n' +
    'value alone will do), as the answer lists them; without one those values stay unresolved.\n\n' +
    'When the answer is not sure of its lot (exit 6) and you know the lot you meant, name it with\n' +
    '--lot ID (its id as an answer shows it under "Lot id"): the answer is for that lot, and a warning\n' +
    'names the lot the address alone matched. An id the place does not hold is refused (exit 2).\n\n' +
    'Exit 0 answered, 6 answered but not sure it is the lot meant (confidence below 0.8), 3 not covered\n' +
    '(answered: false), 2 bad input, 4 login needed, 5 service unreachable.',
  flags: [
    JSON_FLAG,
    URL_FLAG,
    { name: 'local', description: 'Answer in-process from the local database (SITELINE_DATA_DIR or DATABASE_URL), not the service' },
    {
      name: 'district',
      value: 'D',
      description: "The lot's zoning district, in a place without a zoning map (Somerville: NR, UR, ...); stated by you, and said so",
    },
    { name: 'building-type', value: 'T', description: 'With --district, where the district zones by building type (e.g. "Detached House")' },
    { name: 'lot', value: 'ID', description: 'The lot you meant, by its id as an answer shows it under "Lot id": the answer is for that lot' },
    {
      name: 'condition',
      value: 'NAME=VALUE',
      repeatable: true,
      description: 'With --building-type, a condition its table states values under (e.g. "Driveway access=Front Driveway Access"); repeatable',
    },
  ],
  args: { min: 1, max: 64, name: 'the address, e.g. siteline check "11 Acorn St, Cambridge, MA"' },
  examples: [
    'siteline check "11 Acorn St, Cambridge, MA"',
    'siteline check "11 Acorn St, Cambridge, MA" --json',
    'siteline check --local "11 Acorn St, Cambridge, MA"',
    'siteline check "57 Inman St, Cambridge, MA" --lot 108-15',
    'siteline check "11 Windom St, Somerville, MA" --district NR --building-type "Detached House"',
    'siteline check "11 Windom St, Somerville, MA" --district NR --building-type "Detached House" --condition "Driveway access=Front Driveway Access"',
  ],
  async run({ args, flags, io }) {
    const address = args.join(' ');
    if (!address.trim()) throw new UsageError('the address is empty');
    if (flags.local && flags.url) throw new UsageError('--local and --url exclude each other');
    const stated: Stated = {
      ...(typeof flags.district === 'string' ? { district: flags.district } : {}),
      ...(typeof flags['building-type'] === 'string' ? { buildingType: flags['building-type'] } : {}),
      ...(typeof flags.condition === 'string' ? { conditions: flags.condition.split('\n') } : {}),
      ...(typeof flags.lot === 'string' ? { lotId: flags.lot } : {}),
    };
    const outcome = flags.local ? await localSnapshot(io, address, stated) : await remoteSnapshot(io, address, flags.url as string | undefined, stated);
    if ('error' in outcome) {
      if (outcome.error.code === 'district_required') {
        if (flags.json) out(io, JSON.stringify({ error: outcome.error }, null, 2));
        err(io, `${io.errColour.yellow('district needed:')} ${outcome.error.message}`);
        return EXIT.usage;
      }
      if (flags.json) out(io, JSON.stringify({ error: outcome.error }, null, 2));
      err(io, `${io.errColour.red('error:')} Cannot check that address: ${outcome.error.message}`);
      return outcome.error.code === 'bad_input' ? EXIT.usage : EXIT.failure;
    }
    const snap = outcome.snapshot;
    out(io, flags.json ? JSON.stringify(snap, null, 2) : renderSnapshot(snap, io.colour));
    if (!snap.answered) return EXIT.notCovered;
    // The lot is answered, but nothing about its zoning until a district is stated: the caller's input is missing.
    if (snap.districtChoice?.needs === 'district') return EXIT.usage;
    const doubt = matchDoubt(snap.address!);
    if (!doubt) return EXIT.ok;
    err(io, `${io.errColour.yellow('warning:')} ${doubt.headline}. ${doubt.reason} ${doubt.next} Name the lot you meant with --lot ID.`);
    return EXIT.uncertain;
  },
};

/** The snapshot for a person: what was matched, the lot, the zones, then every envelope value with its status. */
export function renderSnapshot(s: Snapshot, c?: Palette): string {
  const bold = c?.bold ?? ((x: string) => x);
  const dim = c?.dim ?? ((x: string) => x);
  const status = (st: string) =>
    !c ? st : st === 'cited' || st === 'derived_from_cited' ? c.green(st) : st === 'not_extracted' || st === 'missing' ? c.yellow(st) : st;
  const out: string[] = [];
  if (!s.answered) {
    out.push(`Not covered (${s.coverage.status}): ${s.coverage.message}`);
    if (!s.coverage.eligibilityKnown) out.push('Eligibility could not be determined.');
    if (s.suggestions?.length) out.push(`Did you mean: ${s.suggestions.join('; ')}?`);
    return out.join('\n') + '\n';
  }
  const a = s.address!;
  const lot = s.lot!;
  const z = s.zones!;
  out.push(`${bold(a.matchedAddress)}  (${s.coverage.place?.name}, ${s.coverage.place?.region})`);
  out.push(`  matched by ${a.matchType}, confidence ${a.confidence.toFixed(2)}`);
  for (const w of a.warnings) out.push(`  note: ${w}`);
  out.push('');
  out.push(`${bold('Lot')} ${lot.parcelExternalId}  at ${lot.latitude}, ${lot.longitude}`);
  out.push(`  area ${lot.areaSqft.toLocaleString('en-US')} sq ft (${lot.areaM2.toLocaleString('en-US')} m²)`);
  out.push(
    `  frontage ${lot.frontageFt.value ?? 'unknown'}${lot.frontageFt.value !== null ? ' ft' : ''}, depth ${lot.depthFt.value ?? 'unknown'}${lot.depthFt.value !== null ? ' ft' : ''}${lot.cornerLot ? ', corner lot' : ''}`,
  );
  for (const n of [lot.frontageFt.note, lot.depthFt.note, lot.cornerLotNote]) if (n) out.push(`  note: ${n}`);
  const lotSource = sourceOf(s, lot.source);
  out.push(`  source ${lotSource ? `${lotSource.name} (${lotSource.vintage})` : (s.sources[lot.source] ?? lot.source)}`);
  out.push('');
  const primary = primaryDistrict(z);
  if (s.districtChoice) {
    // A place without a zoning map: what to state, never a guessed district.
    out.push(`${bold('Zoning')} ${primary ? `${primary.code}${primary.name ? ' — ' + primary.name : ''}` : 'not stated'}`);
    if (z.districtSource)
      out.push(
        `  district source: ${primary ? `${primary.code}${z.districtSource.buildingType ? ` / ${z.districtSource.buildingType}` : ''} ` : ''}${z.districtSource.statement}`,
      );
    for (const c of z.districtSource?.conditions ?? []) out.push(`  ${c.name}: ${c.value} (stated by the caller)`);
    out.push(`  ${s.districtChoice.message}`);
    const needsConditions = s.districtChoice.needs === 'conditions';
    for (const d of s.districtChoice.districts) {
      if (!needsConditions) out.push(`    ${d.code.padEnd(6)} ${d.name}${d.buildingTypes?.length ? `: ${d.buildingTypes.join(', ')}` : ''}`);
      for (const c of d.conditions ?? [])
        out.push(
          `    ${needsConditions ? '' : '  '}${c.name}${c.buildingTypes?.length && !needsConditions ? ` (${c.buildingTypes.join(', ')})` : ''}: ${c.values.map((v) => `"${v}"`).join(', ')}`,
        );
    }
    out.push(
      needsConditions
        ? `  Run again with --condition "NAME=VALUE" for each (e.g. --condition "${s.districtChoice.districts[0]?.conditions?.[0]?.name ?? 'Name'}=${s.districtChoice.districts[0]?.conditions?.[0]?.values[0] ?? 'Value'}").`
        : `  Run again with --district D${s.districtChoice.districts.some((d) => d.buildingTypes?.length) ? ' --building-type "T"' : ''}${s.districtChoice.districts.some((d) => d.conditions?.length) ? ' [--condition "NAME=VALUE"]' : ''}.`,
    );
    if (!s.envelope) return out.join('\n') + '\n';
    out.push('');
  } else if (z.districtSource) {
    out.push(`${bold('Zoning')} ${primary ? `${primary.code}${primary.name ? ' — ' + primary.name : ''}` : 'not stated'}`);
    out.push(
      `  district source: ${primary?.code ?? ''}${z.districtSource.buildingType ? ` / ${z.districtSource.buildingType}` : ''} ${z.districtSource.statement}`,
    );
    for (const c of z.districtSource.conditions ?? []) out.push(`  ${c.name}: ${c.value} (stated by the caller)`);
  } else
    out.push(
      `${bold('Zoning')} ${primary ? `${primary.code}${primary.name ? ' — ' + primary.name : ''}` : 'not found'}${z.splitLot ? '  (split lot: ' + z.districts.map((d) => `${d.code} ${Math.round(d.share * 100)}%`).join(', ') + ')' : ''}`,
    );
  for (const o of z.overlays) out.push(`  overlay ${o.name ?? o.code}${o.governingSection ? ` (${o.governingSection})` : ''}`);
  out.push('');
  out.push(bold('Envelope'));
  for (const [name, v] of Object.entries(s.envelope ?? {})) {
    const c = citationOf(s, v);
    const cite = c ? `  [${c.section}]` : '';
    const words = valueWords(v, (key) => snapshotInputOf(s, key));
    out.push(`  ${name.padEnd(28)} ${words.says.padEnd(18)} ${words.status} (${status(v.status)})${cite}`);
    out.push(`      ${dim('analysis:')} ${words.analysis}`);
    if (words.why) out.push(`      ${dim('why:')} ${words.why}`);
    // A value is never shown without what qualifies it: its condition, and the source of an indicative value.
    const condition = conditionOf(s, v);
    if (condition) out.push(`      ${dim('condition:')} ${condition}`);
    if (c) {
      out.push(`      quote: "${c.quote}"`);
      out.push(`      source: ${c.documentTitle} § ${c.section} (edition ${c.date}, ${c.sourceUrl}); check it at ${c.href}`);
    }
    // ... and an unknown value never without why it is unknown (the same notes the web page shows).
    if (v.status !== 'cited') for (const n of notesOf(s, v)) out.push(`      note: ${n}`);
  }
  if (s.permittedUses?.length) {
    out.push('');
    out.push(bold('Uses'));
    for (const u of s.permittedUses) out.push(`  ${u.use.padEnd(28)} ${u.permission.padEnd(18)} ${u.status}`);
  }
  out.push('');
  out.push(bold('Sources'));
  // Every source of the place when its catalogue is inline (the CLI asks for it), else the labels the answer names.
  const full = s.sourceCatalogue?.sources;
  if (full)
    for (const [id, src] of Object.entries(full))
      out.push(`  ${id}: ${src.name} (${[src.vintage, src.licence].filter(Boolean).join('; ')})${src.url ? ` ${src.url}` : ''}`);
  else for (const [id, label] of Object.entries(s.sources)) out.push(`  ${id}: ${label}`);
  if (s.sourceCatalogue && !full) out.push(`  all sources in full: ${s.sourceCatalogue.url}`);
  for (const a of s.attribution ?? []) out.push(`  ${a}`);
  return out.join('\n') + '\n';
}
