// Loads and validates a place's rules file (places/<slug>/rules.json), cached per context (ctx.caches),
// file and source directory until the context's rulesReloaded door opens. A place whose rules come from
// an OZFS feed has its districts read from that feed here.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { SitelineError } from '../core/errors.ts';
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';
import { placeRulesSchema, districtRulesSchema, type PlaceRules } from '../core/rules-schema.ts';
import { ozfsToDistricts, ozfsZoningSchema } from './ozfs-rules.ts';
import { sectionUuidOf, setKnowledgeSections, type KnowledgeSection } from './knowledge-sections.ts';
import { citationsOfRules, describeFailures, verifyRulesCitations, type VerifyReport } from './verify-citations.ts';
import { findSection, heldDocuments, type DocumentDeclaration, type HeldDocuments } from './held-documents.ts';
import { loadManifest, type Manifest } from '../places/manifest.ts';

/** The repository's places directory (one folder per place slug). */
export const PLACES_DIR = path.resolve(import.meta.dirname, '../../places');

export class RulesFileError extends SitelineError {
  constructor(
    readonly file: string,
    message: string,
    /** The place has no rules file at all (ENOENT on places/<slug>/rules.json), as opposed to a broken one. */
    readonly missingRulesFile = false,
  ) {
    super('internal', message, { file });
    this.name = 'RulesFileError';
  }
}

/**
 * The one expected reason a place's rules do not load: the place has no rules file (yet). Callers that
 * can do without rules treat only this as "no rules"; any other failure (invalid file, a citation that
 * no longer verifies, an unreadable file) is a fault to log and report.
 */
export function isMissingRulesFile(err: unknown): boolean {
  return err instanceof RulesFileError && err.missingRulesFile;
}

/** One context's rules: each file's load by (slug, places directory, source directory), and the generation. */
class RulesFiles implements CacheDoors {
  readonly loads = new Map<string, Promise<PlaceRules>>();
  /** Bumped at every reload, so caches built on top of the rules can tell. */
  generation = 0;
  readonly resolvedDirs = new Map<string, string>();
  rulesReloaded(): void {
    this.loads.clear();
    this.generation++;
  }
}
const RULES_FILES = cacheKind('rules files', () => new RulesFiles());

function describeIssues(file: string, error: z.ZodError): string {
  const lines = error.issues.slice(0, 10).map((i) => `  ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  const more = error.issues.length > 10 ? `\n  ... and ${error.issues.length - 10} more` : '';
  return `Invalid rules file ${file}:\n${lines.join('\n')}${more}`;
}

async function readJson(file: string, isRulesFile = false): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new RulesFileError(file, `Cannot read rules file ${file}: ${code ?? String(e)}`, isRulesFile && code === 'ENOENT');
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new RulesFileError(file, `Rules file ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

async function load(slug: string, placesDir: string, sourceDir: string | undefined, documents: HeldDocuments): Promise<PlaceRules> {
  const rules = await readRulesFileForVerify(slug, placesDir, sourceDir);
  const file = path.join(placesDir, slug, 'rules.json');
  await resolveCitations(rules, placesDir, sourceDir, file, documents);
  return rules;
}

/** A rules file parsed and validated (OZFS districts read in), its citations not yet verified. */
export async function readRulesFileForVerify(slug: string, placesDir: string, sourceDir: string | undefined): Promise<PlaceRules> {
  if (!/^[a-z0-9-]+$/.test(slug)) throw new SitelineError('bad_input', `Not a place slug: ${JSON.stringify(slug)}`);
  const file = path.join(placesDir, slug, 'rules.json');
  const parsed = placeRulesSchema.safeParse(await readJson(file, true));
  if (!parsed.success) throw new RulesFileError(file, describeIssues(file, parsed.error));
  const rules = parsed.data;
  if (rules.slug !== slug) throw new RulesFileError(file, `Invalid rules file ${file}:\n  slug: "${rules.slug}" does not match the folder "${slug}"`);
  if (rules.ozfs) {
    if (!sourceDir) throw new RulesFileError(file, `Rules file ${file} reads ${rules.ozfs.file}, but no source directory is configured (SITELINE_SOURCE_DIR)`);
    const ozfsFile = path.join(sourceDir, rules.ozfs.file);
    const doc = ozfsZoningSchema.safeParse(await readJson(ozfsFile));
    if (!doc.success) throw new RulesFileError(ozfsFile, describeIssues(ozfsFile, doc.error).replace('Invalid rules file', 'Invalid OZFS file'));
    const fromFeed = ozfsToDistricts(doc.data, rules.ozfs);
    for (const [code, d] of Object.entries(fromFeed)) {
      const check = districtRulesSchema.safeParse(d);
      if (!check.success) throw new RulesFileError(ozfsFile, describeIssues(`${ozfsFile} (district ${code})`, check.error));
    }
    // Districts written in the rules file itself take precedence over the feed's.
    rules.districts = { ...fromFeed, ...rules.districts };
    for (const [code, target] of Object.entries(rules.aliases))
      if (!(target in rules.districts))
        throw new RulesFileError(file, `Invalid rules file ${file}:\n  aliases.${code}: alias target "${target}" is not a district`);
  }
  return rules;
}

/** The documents a manifest declares as citable. */
export function citableDocuments(m: Manifest): DocumentDeclaration[] {
  return m.documents.flatMap((d) =>
    d.id && d.title && d.format && d.edition && d.retrieved && d.licence && d.url
      ? [
          {
            id: d.id,
            title: d.title,
            file: d.file,
            sha256: d.sha256,
            format: d.format,
            edition: d.edition,
            retrieved: d.retrieved,
            licence: d.licence,
            url: d.url,
          },
        ]
      : [],
  );
}

/** Where a place's citations may be read on this service: its held document, at the section, the quote highlighted. */
export function sourcePageHref(place: string, document: string, section: string, quote?: string): string {
  const q = new URLSearchParams({ section, ...(quote ? { quote } : {}) });
  return `/sources/${place}/${document}?${q.toString()}`;
}

/**
 * Verifies every citation against the place's held documents (refusing the rules when one fails) and
 * completes each with what a reader needs: the document's title, URL and edition, the service's page
 * for the quote, and its knowledge section.
 */
async function resolveCitations(rules: PlaceRules, placesDir: string, sourceDir: string | undefined, file: string, held: HeldDocuments): Promise<void> {
  const all = [...citationsOfRules(rules)];
  if (all.length === 0) return;
  const manifest = loadManifest(rules.slug, placesDir);
  const documents = citableDocuments(manifest);
  const placeRoot = sourceDir ? path.join(sourceDir, manifest.sourceFolder) : null;
  const report = await verifyRulesCitations(rules, documents, placeRoot, held);
  if (report.failures.length)
    throw new RulesFileError(
      file,
      `Rules file ${file}: ${report.failures.length} of ${report.checked} citations do not verify against the documents the place holds:\n${describeFailures(report)}`,
    );
  const byId = new Map(documents.map((d) => [d.id, d]));
  const sections = new Map<string, KnowledgeSection>();
  // A reading's support quote is evidence a reader checks too: it is completed like a citation.
  const supports = all.flatMap((c) => (c.value?.reading ? [{ citation: c.value.reading.support, district: c.district }] : []));
  for (const { citation, district } of [...all, ...supports]) {
    const decl = byId.get(citation.document)!;
    const uuid = sectionUuidOf(rules.slug, decl.id, citation.section);
    Object.assign(citation, {
      documentTitle: decl.title,
      sourceUrl: decl.url,
      date: decl.edition,
      href: sourcePageHref(rules.slug, decl.id, citation.section, citation.quote),
      sectionUuid: uuid,
    });
    let s = sections.get(uuid);
    if (!s) {
      const doc = await held.read(placeRoot!, decl);
      const found = findSection(doc, citation.section)!;
      s = {
        sectionUuid: uuid,
        place: rules.slug,
        bylaw: decl.title,
        document: decl.id,
        section: citation.section,
        title: `${decl.title}, ${found.heading}`,
        sourceUrl: decl.url,
        date: decl.edition,
        text: doc.text.slice(found.start, Math.min(found.end, found.start + 20_000)).trim(),
        href: sourcePageHref(rules.slug, decl.id, citation.section),
        districts: [],
      };
      sections.set(uuid, s);
    }
    if (!s.districts.includes(district)) s.districts.push(district);
  }
  setKnowledgeSections(rules, [...sections.values()]);
}

/** The rules of a place, validated (cached in the context; a failed load is not cached). */
export function loadPlaceRules(ctx: Pick<AppContext, 'config' | 'caches'>, slug: string): Promise<PlaceRules> {
  const files = ctx.caches.of(RULES_FILES);
  const placesDir = resolvedDir(files, ctx.config.placesDir);
  const sourceDir = ctx.config.sourceDir;
  const key = `${slug}\u0000${placesDir}\u0000${sourceDir ?? '\u0001'}`;
  let p = files.loads.get(key);
  if (!p) {
    const loads = files.loads;
    p = load(slug, placesDir, sourceDir, heldDocuments(ctx));
    loads.set(key, p);
    p.catch(() => {
      if (loads.get(key) === p) loads.delete(key);
    });
  }
  return p;
}

// Every snapshot reads its rules through here: an absolute places directory as given -> normalised,
// kept (path.resolve per call was a measurable share of a snapshot); a relative one depends on the
// working directory, so it is resolved each time. Bounded by the directories a context uses.
function resolvedDir(files: RulesFiles, dir: string): string {
  if (!path.isAbsolute(dir)) return path.resolve(dir);
  let r = files.resolvedDirs.get(dir);
  if (r === undefined) {
    r = path.resolve(dir);
    if (files.resolvedDirs.size >= 64) files.resolvedDirs.clear();
    files.resolvedDirs.set(dir, r);
  }
  return r;
}

/** The context's rules generation: bumped whenever its cached rules are dropped (the rulesReloaded door). */
export function rulesGeneration(ctx: Pick<AppContext, 'caches'>): number {
  return ctx.caches.of(RULES_FILES).generation;
}

/**
 * Verifies a place's rules file as it is on disk (the schema checks of a load, then every citation
 * against the place's held documents) without touching the loaded rules: `siteline rules verify`,
 * `data check` and `data import` call it.
 */
export async function verifyPlaceRules(slug: string, opts: { placesDir: string; sourceDir: string | undefined; placeRoot?: string }): Promise<VerifyReport> {
  const placesDir = path.resolve(opts.placesDir);
  const sourceDir = opts.sourceDir;
  const manifest = loadManifest(slug, placesDir);
  const rules = await readRulesFileForVerify(slug, placesDir, sourceDir);
  const placeRoot = opts.placeRoot ?? (sourceDir ? path.join(sourceDir, manifest.sourceFolder) : null);
  return verifyRulesCitations(rules, citableDocuments(manifest), placeRoot);
}
