// Somerville's values read by hand from the held ordinance (test/fixtures/somerville-hand-read.json,
// 23 building types) against the shipped rules file, value by value; and `rules suggest` measured
// against the same table (precision and recall per standard, printed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { citableDocuments, readRulesFileForVerify, PLACES_DIR } from './load-rules.ts';
import { findQuote, findSection, readHeldDocument, sectionSpan, type HeldDocument } from './held-documents.ts';
import { sameWords, vocabularyOf } from './citation-vocabulary.ts';
import { sectionsWithin, suggestCitations } from './suggest-citations.ts';
import { loadManifest } from '../places/manifest.ts';
import type { BuildingTypeStandardKey, PlaceRules, RuleTier } from '../core/rules-schema.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');
const FIXTURE = path.resolve(import.meta.dirname, '../../test/fixtures/somerville-hand-read.json');

interface HandRead {
  district: string;
  buildingType: string;
  section: string;
  standard: BuildingTypeStandardKey;
  label: string;
  words: string[];
  value?: number;
  tiers?: [string[], number | number[]][];
  notExtracted?: string;
  reading?: string;
}

const table = (JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { values: HandRead[] }).values;

async function setup(): Promise<{ rules: PlaceRules; doc: HeldDocument }> {
  const rules = await readRulesFileForVerify('somerville-ma', PLACES_DIR, SOURCE_DIR);
  const m = loadManifest('somerville-ma', PLACES_DIR);
  const doc = await readHeldDocument(path.join(SOURCE_DIR, m.sourceFolder), citableDocuments(m)[0]!);
  return { rules, doc };
}

/** Whether a stated value (a number, or tiers) is what the hand reading found; why not, or null. */
function disagreement(h: HandRead, stated: { value?: number | null; tiers?: RuleTier[] | undefined }): string | null {
  if (h.value !== undefined) {
    if (stated.tiers) return `tiers ${JSON.stringify(stated.tiers)}, read ${h.value}`;
    return stated.value === h.value ? null : `value ${stated.value}, read ${h.value}`;
  }
  const rows = h.tiers!.map(([path, n]) => ({ path, numbers: (Array.isArray(n) ? n : [n]).slice().sort((a, b) => a - b) }));
  if (!stated.tiers) return `value ${stated.value}, read tiers ${JSON.stringify(h.tiers)}`;
  if (stated.tiers.length !== rows.length) return `${stated.tiers.length} tiers, read ${rows.length}`;
  const used = new Set<number>();
  for (const t of stated.tiers) {
    const fits = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.path.every((p) => t.when.some((w) => sameWords(w, p))));
    const longest = Math.max(...fits.map((f) => f.r.path.length));
    const hit = fits.filter((f) => f.r.path.length === longest);
    if (hit.length !== 1) return `tier ${t.when.join(' and ')} names ${hit.length} of the rows read`;
    const { r, i } = hit[0]!;
    if (used.has(i)) return `two tiers read ${r.path.join(' > ') || 'the unconditioned row'}`;
    used.add(i);
    const nums = t.values.map(Number).sort((a, b) => a - b);
    if (nums.join() !== r.numbers.join()) return `tier ${t.when.join(' and ')}: ${nums.join(' or ')}, read ${r.numbers.join(' or ')}`;
  }
  return null;
}

test("the hand-read table of Somerville (every one of the 23 building types) agrees with the rules on every value, and its words are the ordinance's", async () => {
  const { rules, doc } = await setup();
  const types = new Set(table.map((h) => `${h.district}/${h.buildingType}`));
  assert.equal(types.size, 23, 'all 23 building types are read');
  assert.ok(table.length >= 60, `${table.length} values read`);
  const problems: string[] = [];
  for (const h of table) {
    const where = `${h.district} / ${h.buildingType} ${h.standard} (§${h.section})`;
    const bt = rules.districts[h.district]?.buildingTypes?.[h.buildingType];
    if (!bt) {
      problems.push(`${where}: no such building type in the rules`);
      continue;
    }
    if (bt.section !== h.section) problems.push(`${where}: the rules put the type in §${bt.section}`);
    // The words read are in the section, each as whole words and numbers.
    const span = sectionSpan(doc, findSection(doc, h.section)!);
    for (const w of h.words) if (!findQuote(doc.normalized, w, span.from, span.to)) problems.push(`${where}: "${w}" is not in §${h.section}`);
    const rv = bt.standards[h.standard];
    if (h.notExtracted !== undefined) {
      if (rv) problems.push(`${where}: the rules state ${JSON.stringify(rv.value ?? rv.tiers)}, read: not extractable (${h.notExtracted})`);
      else if (!bt.notExtracted?.[h.standard]) problems.push(`${where}: the rules give no reason it is not extracted`);
      continue;
    }
    if (!rv) {
      problems.push(`${where}: the rules do not state it (read ${JSON.stringify(h.value ?? h.tiers)})`);
      continue;
    }
    if (!['cited', 'cited_conditional'].includes(rv.status)) problems.push(`${where}: status ${rv.status}`);
    const why = disagreement(h, rv);
    if (why) problems.push(`${where}: ${why}`);
    if (h.reading && !rv.reading) problems.push(`${where}: read with a reading (${h.reading}); the rules state none`);
  }
  assert.deepEqual(problems, []);
});

test('rules suggest against the hand-read table: precision and recall per standard', async () => {
  const { rules, doc } = await setup();
  const vocab = vocabularyOf(rules);
  const per = new Map<string, { tp: number; fp: number; fn: number; proposals: number; read: number }>();
  const misses: string[] = [];
  for (const h of table) {
    const d = rules.districts[h.district]!;
    const bt = d.buildingTypes![h.buildingType]!;
    const sections = sectionsWithin(doc, findSection(doc, bt.section)!);
    const found = suggestCitations(doc, vocab, {
      sections,
      standard: h.standard,
      scope: { district: h.district, districtRules: d, buildingType: h.buildingType, bt },
    });
    const citable = found.filter((c) => c.citable && c.proposal);
    const s = per.get(h.standard) ?? { tp: 0, fp: 0, fn: 0, proposals: 0, read: 0 };
    per.set(h.standard, s);
    s.proposals += citable.length;
    const right = citable.filter((c) => h.notExtracted === undefined && disagreement(h, c.proposal!) === null);
    s.tp += right.length;
    s.fp += citable.length - right.length;
    for (const c of citable)
      if (!right.includes(c)) misses.push(`FP ${h.district}/${h.buildingType} ${h.standard}: ${JSON.stringify(c.proposal)} from "${c.quote}"`);
    if (h.notExtracted === undefined) {
      s.read++;
      if (right.length === 0) {
        s.fn++;
        misses.push(`FN ${h.district}/${h.buildingType} ${h.standard}: ${found.map((c) => c.why ?? JSON.stringify(c.proposal)).join('; ') || 'no candidate'}`);
      }
    }
  }
  const rows = [...per.entries()].sort(([a], [b]) => a.localeCompare(b));
  const pct = (n: number, d: number) => (d ? ((100 * n) / d).toFixed(1) : '-');
  const total = rows.reduce((a, [, s]) => ({ tp: a.tp + s.tp, fp: a.fp + s.fp, fn: a.fn + s.fn, read: a.read + s.read }), { tp: 0, fp: 0, fn: 0, read: 0 });
  console.log(
    [
      'standard | read | citable proposals | right | precision % | recall %',
      ...rows.map(([k, s]) => `${k} | ${s.read} | ${s.proposals} | ${s.tp} | ${pct(s.tp, s.tp + s.fp)} | ${pct(s.read - s.fn, s.read)}`),
      `all | ${total.read} | ${total.tp + total.fp} | ${total.tp} | ${pct(total.tp, total.tp + total.fp)} | ${pct(total.read - total.fn, total.read)}`,
      ...misses,
    ].join('\n'),
  );
  // Suggest offers only what the checker accepts, so a wrong proposal is a checker that accepts a wrong value.
  assert.equal(total.fp, 0, misses.join('\n'));
  assert.ok(total.read - total.fn >= 0.95 * total.read, `recall ${pct(total.read - total.fn, total.read)}%`);
});
