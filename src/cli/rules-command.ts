// `siteline rules verify|suggest|cite`: the tools of the person who adds citations to a place's rules
// file. They read the place's manifest, rules file and held documents (files only, no database, no
// service). Exit 0 ok; 1 verify found citations that do not verify; 2 bad input (unknown place,
// document or section, a quote that is not in the text, a value that is not in the quote: nothing written).
import fs from 'node:fs';
import path from 'node:path';
import type { Command, CommandInput } from './command.ts';
import { JSON_FLAG } from './command.ts';
import { err, out, type Io } from './output.ts';

const FROM_FLAG = { name: 'from', value: 'DIR', description: 'Directory holding the place sources (default: SITELINE_SOURCE_DIR, else ../shared/data)' };

async function modules() {
  const [config, loadRules, verify, held, suggest, schema, manifest, vocab] = await Promise.all([
    import('../config.ts'),
    import('../rules/load-rules.ts'),
    import('../rules/verify-citations.ts'),
    import('../rules/held-documents.ts'),
    import('../rules/suggest-citations.ts'),
    import('../core/rules-schema.ts'),
    import('../places/manifest.ts'),
    import('../rules/citation-vocabulary.ts'),
  ]);
  return { config, loadRules, verify, held, suggest, schema, manifest, vocab };
}

function fail(io: Io, cmd: string, message: string, code = 2): number {
  err(io, `${io.errColour.red('error:')} siteline rules ${cmd}: ${message}`);
  return code;
}

async function placeSetup(io: Io, cmd: string, slug: string, from: string | undefined): Promise<{ error: number } | Setup> {
  const m = await modules();
  const placesDir = m.config.placesDirFromEnv(io.env);
  const known = m.manifest.listManifestSlugs(placesDir);
  if (!known.includes(slug)) return { error: fail(io, cmd, `no place "${slug}". Known places: ${known.join(', ')}`) };
  const sourceDir = from !== undefined ? path.resolve(from) : m.config.loadConfig(io.env).sourceDir;
  const manifest = m.manifest.loadManifest(slug, placesDir);
  const documents = m.loadRules.citableDocuments(manifest);
  const placeRoot = sourceDir ? path.join(sourceDir, manifest.sourceFolder) : null;
  return { m, placesDir, sourceDir, documents, placeRoot };
}

type Setup = {
  m: Awaited<ReturnType<typeof modules>>;
  placesDir: string;
  sourceDir: string | undefined;
  documents: import('../rules/held-documents.ts').DocumentDeclaration[];
  placeRoot: string | null;
};

async function runVerify({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const s = await placeSetup(io, 'verify', slug!, flags.from as string | undefined);
  if ('error' in s) return s.error;
  let report;
  try {
    report = await s.m.loadRules.verifyPlaceRules(slug!, { placesDir: s.placesDir, sourceDir: s.sourceDir });
  } catch (e) {
    if (e instanceof s.m.loadRules.RulesFileError) return fail(io, 'verify', e.message);
    throw e;
  }
  if (flags.json === true) out(io, JSON.stringify({ ...report, checks: undefined }, null, 2));
  else {
    const docs = report.documents.map((d) => `${d.id} (${d.title}, sha256 ${d.sha256.slice(0, 12)}…)${d.ok ? '' : `: ${d.why}`}`);
    const lines = [
      `${slug}: ${report.verified} of ${report.checked} citations verify${docs.length ? ` against ${docs.join('; ')}` : ' (the place declares no citable document)'}`,
    ];
    if (report.checked === 0) lines.push('  nothing is cited: every value carries another status');
    out(io, lines.join('\n'));
    if (report.failures.length) err(io, `${report.failures.length} citation(s) do not verify:\n${s.m.verify.describeFailures(report, 1000)}`);
  }
  return report.failures.length ? 1 : 0;
}

/** The place's rules as the checker reads them (vocabulary, declared sections), or null when the file does not load. */
async function rulesFor(s: Setup, slug: string): Promise<import('../core/rules-schema.ts').PlaceRules | null> {
  try {
    return await s.m.loadRules.readRulesFileForVerify(slug, s.placesDir, s.sourceDir);
  } catch (e) {
    if (e instanceof s.m.loadRules.RulesFileError) return null;
    throw e;
  }
}

async function runSuggest({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const s = await placeSetup(io, 'suggest', slug!, flags.from as string | undefined);
  if ('error' in s) return s.error;
  const { m } = s;
  if (!s.placeRoot) return fail(io, 'suggest', 'no source directory: pass --from DIR or set SITELINE_SOURCE_DIR');
  const standard = flags.standard as string | undefined;
  if (standard !== undefined && !(standard in m.schema.BUILDING_TYPE_STANDARD_UNITS))
    return fail(io, 'suggest', `"${standard}" is not a standard. Standards: ${m.schema.BUILDING_TYPE_STANDARD_KEYS.join(', ')}`);
  const docs = flags.document ? s.documents.filter((d) => d.id === flags.document) : s.documents;
  if (docs.length === 0)
    return fail(
      io,
      'suggest',
      flags.document ? `no document "${String(flags.document)}" in ${slug}'s manifest` : `${slug} declares no citable document (manifest documents with an id)`,
    );
  const rules = await rulesFor(s, slug!);
  const vocab = m.vocab.vocabularyOf(rules);
  const districtCode = flags.district as string;
  const btName = flags['building-type'] as string | undefined;
  const d = rules?.districts[districtCode];
  const bt = btName ? d?.buildingTypes?.[btName] : undefined;
  const scope = d && (!btName || bt) ? { district: districtCode, districtRules: d, ...(bt ? { buildingType: btName!, bt } : {}) } : undefined;
  const found: { document: string; c: import('../rules/suggest-citations.ts').Candidate }[] = [];
  const looked: string[] = [];
  for (const decl of docs) {
    let doc;
    try {
      doc = await m.held.readHeldDocument(s.placeRoot, decl);
    } catch (e) {
      if (e instanceof m.held.DocumentError) return fail(io, 'suggest', e.message);
      throw e;
    }
    // Where to look: the sections the rules declare (the type's, else the district's), else the headings that name them.
    const declared = bt?.section ?? d?.section;
    const root = declared ? m.held.findSection(doc, declared) : null;
    let sections = root ? m.suggest.sectionsWithin(doc, root) : [];
    if (root && btName && !bt?.section)
      sections = sections.filter((x) => m.suggest.sectionsNaming(doc, btName).includes(x)).flatMap((x) => m.suggest.sectionsWithin(doc, x));
    if (!root) {
      const named = m.suggest.sectionsNaming(doc, btName ?? districtCode);
      sections = [...new Set(named.flatMap((x) => m.suggest.sectionsWithin(doc, x)))];
    }
    for (const x of sections) if (!looked.includes(x.id)) looked.push(x.id);
    for (const c of m.suggest.suggestCitations(doc, vocab, { sections, standard: (standard as never) ?? null, ...(scope ? { scope } : {}) }))
      found.push({ document: decl.id, c });
  }
  if (flags.json === true) {
    out(
      io,
      JSON.stringify(
        found.map(({ document, c }) => ({
          document,
          section: c.section,
          heading: c.heading,
          line: c.line,
          kind: c.kind,
          quote: c.quote,
          ...(c.proposal ? { proposal: c.proposal } : {}),
          ...(c.citable !== undefined ? { citable: c.citable } : {}),
          ...(c.why ? { why: c.why } : {}),
        })),
        null,
        2,
      ),
    );
    return 0;
  }
  const within = btName ?? districtCode;
  if (found.length === 0) {
    out(
      io,
      looked.length
        ? `No passage for ${standard ?? 'a standard'} in § ${looked.slice(0, 5).join(', § ')}${looked.length > 5 ? ' …' : ''}: no table row there carries its label and no sentence its words with a number (the value is then not_extracted, with the reason).`
        : `No passage found for "${within}": no section heading names it. Try the district's name or number (e.g. --district "3.1"), or another --standard.`,
    );
    return 0;
  }
  const unitOf = (k: string) => m.vocab.UNIT_RULES[m.schema.BUILDING_TYPE_STANDARD_UNITS[k as keyof typeof m.schema.BUILDING_TYPE_STANDARD_UNITS]];
  const reads = (c: import('../rules/suggest-citations.ts').Candidate) => {
    if (!standard) return '';
    const u = unitOf(standard).label;
    if (c.proposal?.value !== undefined) return `: ${standard} ${c.proposal.value}${u}`;
    if (c.proposal?.tiers) return `: ${standard} ${c.proposal.tiers.map((t) => `${t.when.join(' > ')} ${t.values.join(' or ')}${u}`).join('; ')}`;
    return '';
  };
  const verdict = (c: import('../rules/suggest-citations.ts').Candidate) => (c.citable === false ? `\n    not citable: ${c.why}` : '');
  const lines = found
    .slice(0, 60)
    .map(({ document, c }) => `${document} § ${c.section} (${c.heading}), line ${c.line} [${c.kind}]${reads(c)}\n    ${c.quote}${verdict(c)}`);
  if (found.length > 60) lines.push(`... and ${found.length - 60} more (narrow with --standard or --building-type)`);
  lines.push(
    '',
    `Write one with: siteline rules cite ${slug} --district <D> [--building-type <T>] --standard <S> --section <§> --quote "<words>" (--value N | --tiers "<condition>=N; ...")`,
  );
  out(io, lines.join('\n'));
  return 0;
}

/** "No Driveway Access=32; End Lot in Sequence > Front Driveway Access=32" -> tiers. */
function parseTiers(text: string): { when: string[]; values: string[] }[] | string {
  const tiers: { when: string[]; values: string[] }[] = [];
  for (const part of text
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.lastIndexOf('=');
    if (eq <= 0) return `--tiers takes "<condition>=<number>; ..." (nested conditions joined with " > "), not "${part}"`;
    const values = part
      .slice(eq + 1)
      .split(/\s+or\s+/)
      .map((v) => v.trim());
    if (values.some((v) => !/^-?\d+(?:\.\d+)?$/.test(v))) return `--tiers: "${part.slice(eq + 1).trim()}" is not a number`;
    tiers.push({
      when: part
        .slice(0, eq)
        .split('>')
        .map((w) => w.trim())
        .filter(Boolean),
      values,
    });
  }
  return tiers.length ? tiers : '--tiers is empty';
}

// Long because: the command's steps in order (read, verify, write), each refusal exiting with its code before anything is written.
async function runCite({ args: [slug], flags, io }: CommandInput): Promise<number> {
  const s = await placeSetup(io, 'cite', slug!, flags.from as string | undefined);
  if ('error' in s) return s.error;
  const { m } = s;
  const str = (k: string) => (typeof flags[k] === 'string' ? (flags[k] as string) : undefined);
  const district = str('district')!;
  const buildingType = str('building-type');
  const standard = str('standard');
  const use = str('use');
  const section = str('section');
  const quote = str('quote');
  const status = str('status') ?? (buildingType ? 'cited_conditional' : 'cited');
  if (!section || !quote) return fail(io, 'cite', 'give --section and --quote (the words as the document has them; "…" marks words left out)');
  if (!standard === !use) return fail(io, 'cite', 'give either --standard <S> or --use "<use>"');
  if (!['cited', 'cited_conditional', 'no_limit_in_bylaw'].includes(status))
    return fail(io, 'cite', `--status is cited, cited_conditional or no_limit_in_bylaw (not "${status}")`);
  const units = buildingType ? m.schema.BUILDING_TYPE_STANDARD_UNITS : m.schema.STANDARD_UNITS;
  if (standard && !(standard in units))
    return fail(io, 'cite', `"${standard}" is not a standard${buildingType ? ' of a building type' : ''}. Standards: ${Object.keys(units).join(', ')}`);
  const value = str('value') === undefined ? undefined : Number(str('value'));
  if (value !== undefined && !Number.isFinite(value)) return fail(io, 'cite', `--value must be a number (not "${str('value')}")`);
  const tiers = str('tiers') === undefined ? undefined : parseTiers(str('tiers')!);
  if (typeof tiers === 'string') return fail(io, 'cite', tiers);
  if (value !== undefined && tiers) return fail(io, 'cite', 'give --value or --tiers, not both');
  if (standard && status !== 'no_limit_in_bylaw' && value === undefined && !tiers)
    return fail(io, 'cite', `${status} needs --value (the number as the quote states it) or --tiers (one per condition the row states)`);
  const readingQuote = str('reading-quote');
  const readingSection = str('reading-section') ?? section;
  const docs = str('document') ? s.documents.filter((d) => d.id === str('document')) : s.documents;
  if (docs.length !== 1)
    return fail(
      io,
      'cite',
      docs.length
        ? `${slug} holds several documents: name one with --document (${docs.map((d) => d.id).join(', ')})`
        : `no such document in ${slug}'s manifest${str('document') ? `: ${str('document')}` : ''}`,
    );
  const decl = docs[0]!;
  if (!s.placeRoot) return fail(io, 'cite', 'no source directory: pass --from DIR or set SITELINE_SOURCE_DIR');

  const file = path.join(s.placesDir, slug!, 'rules.json');
  const rules = JSON.parse(fs.readFileSync(file, 'utf8'));
  const d = rules.districts?.[district];
  if (!d) return fail(io, 'cite', `no district "${district}" in ${file}. Districts: ${Object.keys(rules.districts ?? {}).join(', ')}`);
  const citation = { document: decl.id, section, quote };
  const condition = str('condition');
  let target: Record<string, unknown>;
  if (buildingType) {
    const bt = d.buildingTypes?.[buildingType];
    if (!bt)
      return fail(
        io,
        'cite',
        `district ${district} has no building type "${buildingType}". Building types: ${Object.keys(d.buildingTypes ?? {}).join(', ') || '(none)'}`,
      );
    target = bt.standards;
  } else target = d.standards;
  if (standard) {
    target[standard] = {
      status,
      ...(value !== undefined ? { value } : status === 'no_limit_in_bylaw' ? { value: null } : {}),
      ...(tiers ? { tiers } : {}),
      ...((condition ?? (status === 'cited_conditional' && buildingType)) ? { condition: condition ?? `Building type: ${buildingType}` } : {}),
      citation,
      ...(readingQuote
        ? {
            reading: {
              columns: 'min/max',
              support: { document: decl.id, section: readingSection, quote: readingQuote },
              note: str('reading-note') ?? 'The row gives two numbers; the support quote states the range (the first is the minimum, the second the maximum).',
            },
          }
        : {}),
    };
    if (buildingType && d.buildingTypes[buildingType].notExtracted) delete d.buildingTypes[buildingType].notExtracted[standard];
  } else {
    const uses = d.uses as { use: string }[];
    const permission = str('permission') ?? 'as_of_right';
    const entry = { use: use!, permission, status, citation, ...(condition ? { condition } : {}) };
    const i = uses.findIndex((u) => u.use === use);
    if (i >= 0) uses[i] = entry;
    else uses.push(entry);
  }
  const parsed = m.schema.placeRulesSchema.safeParse(rules);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `  ${i.path.join('.')}: ${i.message}`)
      .join('\n');
    return fail(io, 'cite', `the rules file would not validate; nothing was written:\n${issues}`);
  }
  // The same checker as every load, `rules verify` and the import gate, on the one value written.
  const { held } = await m.verify.readHeld([decl], s.placeRoot);
  const doc = held.get(decl.id);
  if (typeof doc === 'string') return fail(io, 'cite', doc);
  const item = standard ?? `use:${use}`;
  const [check] = m.verify.checkRules(parsed.data, held, (c) => c.district === district && c.buildingType === buildingType && c.item === item);
  if (!check) return fail(io, 'cite', 'nothing to check');
  if (!check.ok) return fail(io, 'cite', `${check.why}. Nothing was written.`);
  fs.writeFileSync(file, JSON.stringify(rules, null, 2) + '\n');
  const stated = value !== undefined ? ` ${value}` : tiers ? ` ${tiers.map((t) => `${t.when.join(' > ')}=${t.values.join(' or ')}`).join('; ')}` : '';
  out(
    io,
    `${slug} ${district}${buildingType ? ` / ${buildingType}` : ''} ${standard ?? `use ${use}`}: ${status}${stated}, verified in ${decl.id} § ${section}; written to ${path.relative(process.cwd(), file)}`,
  );
  return 0;
}

const PLACE_ARG = { min: 1, max: 1, name: 'the place, e.g. somerville-ma' };

export const rulesCommand: Command = {
  name: 'rules',
  summary: "Verify a place's citations against the documents it holds; find and write new ones",
  usage: 'rules <command> [flags]',
  description:
    "A value is cited only when its quote occurs in its district's (or building type's) section of a document the place holds (declared in its manifest with its sha256), on the row the standard's own label names, and the number is the one that row states for the standard. These commands read files only (docs/data.md, \"Citations\").",
  subcommands: [
    {
      name: 'verify',
      summary: "Check every citation of a place's rules file against its held documents",
      usage: 'rules verify <place> [--from DIR] [--json]',
      description: 'Exit 0 when every citation verifies, 1 when one does not (each listed: value, district, document, section, why), 2 on bad input.',
      flags: [FROM_FLAG, JSON_FLAG],
      args: PLACE_ARG,
      examples: ['siteline rules verify somerville-ma'],
      run: runVerify,
    },
    {
      name: 'suggest',
      summary: "Candidate passages for a standard in a place's documents",
      usage: 'rules suggest <place> --district D [--building-type T] [--standard S] [--document ID] [--from DIR] [--json]',
      description:
        "Looks in the building type's (or district's) declared section, else the sections whose headings name it, for the table rows the standard's own labels name and sentences with its words; prints each with its section, line, the quote, what the checker reads from it (a value, or a tier per condition) and, when the checker refuses it, why.",
      flags: [
        { name: 'district', value: 'D', description: 'District code, name or section number (required)' },
        { name: 'building-type', value: 'T', description: 'Building type name (where the place zones by building type)' },
        { name: 'standard', value: 'S', description: 'A standard, e.g. maxHeightFt, minLotWidthFt' },
        { name: 'document', value: 'ID', description: 'One held document (default: all)' },
        FROM_FLAG,
        JSON_FLAG,
      ],
      args: PLACE_ARG,
      examples: ['siteline rules suggest somerville-ma --district NR --building-type "Detached House" --standard maxLotCoveragePct'],
      run: async (input) =>
        typeof input.flags.district === 'string' ? runSuggest(input) : fail(input.io, 'suggest', 'give --district (code, name or section number)'),
    },
    {
      name: 'cite',
      summary: "Verify a quote and write it into the rules file as a value's citation",
      usage:
        'rules cite <place> --district D [--building-type T] (--standard S (--value N | --tiers T) | --use U) --section S --quote Q [--reading-quote Q] [--status ST] [--condition C] [--document ID]',
      description:
        "Runs the checker of every load on the one value before writing (the section is the district's or type's, the quote is the standard's own row, the number is the one it states for the bound, a tier per condition); what does not verify writes nothing. Status defaults to cited (cited_conditional for a building type).",
      flags: [
        { name: 'district', value: 'D', description: 'District code in the rules file (required)' },
        { name: 'building-type', value: 'T', description: 'Building type of the district' },
        { name: 'standard', value: 'S', description: 'The standard the value is for' },
        { name: 'use', value: 'U', description: 'A use (instead of a standard)' },
        { name: 'permission', value: 'P', description: 'For a use: as_of_right, special_permit, conditional, prohibited' },
        { name: 'value', value: 'N', description: 'The value as the quote states it' },
        {
          name: 'tiers',
          value: 'T',
          description: 'One tier per condition the row states: "<condition>=N; ..." (nested conditions joined with " > "; a choice as "3 or 20")',
        },
        {
          name: 'reading-quote',
          value: 'Q',
          description: "For a row with two numbers under one bound: the ordinance's words that state the range (read as min then max)",
        },
        { name: 'reading-section', value: 'S', description: 'The section of --reading-quote (default: --section)' },
        { name: 'reading-note', value: 'N', description: 'Why the reading holds, in words' },
        { name: 'section', value: 'S', description: 'The section as the document numbers it, e.g. 3.1.8' },
        { name: 'quote', value: 'Q', description: 'The words, verbatim ("…" marks words left out)' },
        { name: 'status', value: 'ST', description: 'cited, cited_conditional or no_limit_in_bylaw' },
        { name: 'condition', value: 'C', description: 'The condition, for cited_conditional' },
        { name: 'document', value: 'ID', description: 'The held document (needed when the place holds several)' },
        FROM_FLAG,
      ],
      args: PLACE_ARG,
      examples: [
        'siteline rules cite somerville-ma --district NR --building-type "Detached House" --standard maxLotCoveragePct --value 60 --section 3.1.8 --quote "Lot Coverage (max) | 60%"',
      ],
      run: async (input) => (typeof input.flags.district === 'string' ? runCite(input) : fail(input.io, 'cite', 'give --district')),
    },
  ],
};
