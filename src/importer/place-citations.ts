// The citation gate shared by `data check` and `data import`: every cited value of the place's rules
// file must verify against the documents the place holds, or the import is refused with the list.
import fs from 'node:fs';
import path from 'node:path';
import { SitelineError } from '../core/errors.ts';
import { RulesFileError, verifyPlaceRules } from '../rules/load-rules.ts';
import { describeFailures, type CitationCheck } from '../rules/verify-citations.ts';

export interface CitationVerdict {
  checked: number;
  verified: number;
  failures: CitationCheck[];
  /** The rules file itself does not load (schema), or there is none. */
  rulesProblem?: string;
  /** One line per failure: value, district, document, section, why. */
  text: string;
}

export async function verifyPlaceCitations(
  slug: string,
  opts: { placesDir: string; sourceDir: string | undefined; placeRoot: string },
): Promise<CitationVerdict> {
  if (!fs.existsSync(path.join(opts.placesDir, slug, 'rules.json'))) return { checked: 0, verified: 0, failures: [], rulesProblem: 'no rules.json', text: '' };
  try {
    const r = await verifyPlaceRules(slug, { placesDir: opts.placesDir, sourceDir: opts.sourceDir, placeRoot: opts.placeRoot });
    return { checked: r.checked, verified: r.verified, failures: r.failures, text: describeFailures(r) };
  } catch (e) {
    if (e instanceof RulesFileError) return { checked: 0, verified: 0, failures: [], rulesProblem: e.message, text: e.message };
    throw e;
  }
}

export function formatCitationVerdict(v: CitationVerdict): string[] {
  if (v.rulesProblem === 'no rules.json') return ['  citations: no rules file'];
  if (v.rulesProblem) return [`  citations: the rules file does not load: ${v.rulesProblem}`];
  if (v.checked === 0) return ['  citations: none (nothing is cited)'];
  const head = `  citations: ${v.verified} of ${v.checked} verify against the documents the place holds`;
  return v.failures.length ? [head, `  REFUSED: an import would refuse these ${v.failures.length}:`, v.text] : [head];
}

/** Throws (bad input, nothing changed) when a cited value does not verify. */
export function refuseUnverified(slug: string, v: CitationVerdict): void {
  if (v.failures.length === 0 && !(v.rulesProblem && v.rulesProblem !== 'no rules.json')) return;
  const what = v.failures.length
    ? `${v.failures.length} of ${v.checked} cited values do not verify against the documents the place holds:\n${v.text}`
    : `its rules file does not load: ${v.rulesProblem}`;
  throw new SitelineError(
    'bad_input',
    `${slug}: refusing to import: ${what}\nNothing was changed. Mend the citations (siteline rules verify ${slug}; siteline rules suggest / cite) and import again.`,
    {
      problems: v.failures.map((f) => `${f.district}${f.buildingType ? ` / ${f.buildingType}` : ''} ${f.item}: ${f.why}`),
    },
  );
}
