// Proof by mutation: every cited value of every shipped place, made wrong in each of the ways a
// citation can be wrong while its words still occur in the document, is refused by the checker that
// every load, `rules verify`, `rules cite`, `rules suggest`, `data check` and `data import` run, and
// the refusal names the value. fast-check picks the wrong variant (which other row, which number,
// which tier pair); every value meets every kind that applies to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fc from 'fast-check';
import { citableDocuments, PLACES_DIR, readRulesFileForVerify } from './load-rules.ts';
import { findSection, normalizeForMatch, quoteParts, sectionSpan, type HeldDocument } from './held-documents.ts';
import { numbersIn, vocabularyOf, type Vocabulary } from './citation-vocabulary.ts';
import { sectionTables, type TableRow } from './ordinance-tables.ts';
import { checkOne, citationsOfRules, readHeld, rowsOfStandard, type CitedItem, type Held } from './verify-citations.ts';
import { listManifestSlugs, loadManifest } from '../places/manifest.ts';
import type { BuildingTypeStandardKey, RuleValue, UseRule } from '../core/rules-schema.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');
const RUNS = 3;
/** A fixed seed, printed, so every run draws the same variants and any failure replays (override: SITELINE_FC_SEED). */
const SEED = Number(process.env.SITELINE_FC_SEED ?? 4646);

const KINDS = [
  'another row',
  'another section',
  'swapped tiers',
  'permission',
  'changed value',
  'label skips to another row',
  'number inside another',
] as const;
type Kind = (typeof KINDS)[number];

interface Place {
  slug: string;
  held: Held;
  vocab: Vocabulary;
  items: CitedItem[];
}

interface Ctx {
  place: Place;
  item: CitedItem;
  doc: HeldDocument;
  /** Rows of the item's section that are not the standard's own. */
  otherRows: TableRow[];
  /** Every row of the section with a number. */
  numbered: TableRow[];
  rows: TableRow[];
}

const plain = (item: CitedItem, value: number, citation = item.citation): CitedItem => ({
  ...item,
  citation,
  value: { status: item.value!.status, value, ...(item.value!.condition ? { condition: item.value!.condition } : {}) } as RuleValue,
});
const firstNumber = (cell: string) => numbersIn(cell)[0]?.value;

/** The numbers an item states (its value, or each tier's). */
function statedNumbers(v: RuleValue): number[] {
  if (v.value !== undefined && v.value !== null) return [v.value];
  return (v.tiers ?? []).flatMap((t) => t.values.map(Number));
}

/**
 * A variant of the item of the kind, chosen by `pick`, or null when the kind does not apply to it.
 * Long because: one case per way a citation can be wrong, side by side so the list reads as the checker's table.
 */
function variant(kind: Kind, ctx: Ctx, pick: (n: number) => number): CitedItem | null {
  const { item, place, doc } = ctx;
  const v = item.value;
  const choose = <T>(xs: T[]): T | null => (xs.length ? xs[pick(xs.length)]! : null);
  switch (kind) {
    case 'another row': {
      // Another row's quote, with that row's number (a front setback quoting "Secondary Front Setback").
      if (!v || !item.unit) return null;
      const row = choose(ctx.otherRows);
      if (!row) return null;
      const n = firstNumber(row.seg.values.find((c) => firstNumber(c) !== undefined)!)!;
      return plain(item, n, { ...item.citation, quote: row.seg.text });
    }
    case 'another section': {
      // The same standard (or use) cited from another district's or building type's section.
      const own = item.bt?.section ?? item.districtRules.section;
      const others = place.items.filter(
        (o) =>
          o.item.startsWith('use:') === item.item.startsWith('use:') &&
          (item.use || o.item === item.item) &&
          o.citation.section !== item.citation.section &&
          (o.bt?.section ?? o.districtRules.section) !== own,
      );
      const o = choose(others);
      if (!o) return null;
      if (item.use) return { ...item, citation: o.citation, use: { ...item.use, citation: o.citation } };
      return { ...item, citation: o.citation, value: o.value };
    }
    case 'swapped tiers': {
      if (!v) return null;
      if (v.tiers) {
        const pairs: [number, number][] = [];
        v.tiers.forEach((a, i) => v.tiers!.forEach((b, j) => i < j && a.values.join() !== b.values.join() && pairs.push([i, j])));
        const p = choose(pairs);
        if (!p) return null;
        const tiers = v.tiers.map((t) => ({ ...t }));
        [tiers[p[0]]!.values, tiers[p[1]]!.values] = [tiers[p[1]]!.values, tiers[p[0]]!.values];
        return { ...item, value: { ...v, tiers } };
      }
      // A (min/max) pair read the other way round.
      const head = quoteParts(item.citation.quote)[0]!
        .split(' | ')
        .slice(1)
        .map(firstNumber)
        .filter((n): n is number => n !== undefined);
      const other = head.length === 2 && head[0] !== head[1] ? head.find((n) => n !== v.value) : undefined;
      return other === undefined ? null : { ...item, value: { ...v, value: other } };
    }
    case 'permission': {
      if (!item.use) return null;
      const p = choose((['as_of_right', 'special_permit', 'conditional', 'prohibited'] as const).filter((x) => x !== item.use!.permission))!;
      return { ...item, use: { ...item.use, permission: p } as UseRule };
    }
    case 'changed value': {
      if (item.use) {
        // A use the quote does not list, under the same words.
        const names = [
          ...new Set(
            place.items.filter((o) => o.use && !normalizeForMatch(item.citation.quote).includes(o.use.use.replace(/^[^:]*:\s*/, ''))).map((o) => o.use!.use),
          ),
        ];
        const name = choose(names);
        return name ? { ...item, use: { ...item.use, use: name } } : null;
      }
      if (!v) return null;
      const bump = (n: number) => {
        const d = 1 + pick(60);
        return n + d === 77 ? 77 : ([n + d, Math.max(0, n - d), 77, n * 2 + 1].filter((x) => x !== n)[pick(3)] ?? n + d);
      };
      if (v.tiers) {
        const i = pick(v.tiers.length);
        const tiers = v.tiers.map((t, j) => (j === i ? { ...t, values: t.values.map((x, k) => (k === 0 ? String(bump(Number(x))) : x)) } : t));
        return { ...item, value: { ...v, tiers } };
      }
      return v.value === undefined || v.value === null ? null : { ...item, value: { ...v, value: bump(v.value) } };
    }
    case 'label skips to another row': {
      // "Primary Front Setback … 32 ft": the quote keeps its label and skips to a number of another row.
      if (!v || !item.unit) return null;
      const label = quoteParts(item.citation.quote)[0]!.split(' | ')[0]!;
      const truth = statedNumbers(v);
      const head = ctx.rows.find((r) => normalizeForMatch(r.seg.label) === label);
      if (!head) return null;
      const wrongCell = (r: TableRow) => r.seg.values.some((c) => firstNumber(c) !== undefined && !truth.includes(firstNumber(c)!));
      // Prefer a row near enough that the words are found (a gap under 400 characters): the row rule refuses it, not the distance.
      const at = doc.normalized.indexOf(label, sectionSpan(doc, findSection(doc, item.citation.section)!).from);
      const near = (r: TableRow) => {
        const p = doc.normalized.indexOf(r.seg.text, at);
        return p >= 0 && p - at < 380;
      };
      const later = ctx.otherRows.filter((r) => r.seg.index > head.seg.index && wrongCell(r));
      const row = choose(later.filter(near).length ? later.filter(near) : later.slice(0, 6));
      if (!row) {
        // The table's last row: skip to a number in the words after it.
        const span = sectionSpan(doc, findSection(doc, item.citation.section)!);
        const from = doc.normalized.indexOf(label, span.from) + label.length;
        const after = doc.normalized.slice(from, Math.min(span.to, from + 400));
        const n = choose(numbersIn(after).filter((x) => !truth.includes(x.value)));
        return n
          ? plain(item, n.value, {
              ...item.citation,
              quote: `${label} … ${after.slice(n.start, n.end)}${/^\s*(?:ft|%)/.test(after.slice(n.end)) ? after.slice(n.end).match(/^\s*(?:ft|%)/)![0] : ''}`,
            })
          : null;
      }
      const cell = row.seg.values.find((c) => firstNumber(c) !== undefined && !truth.includes(firstNumber(c)!))!;
      return plain(item, firstNumber(cell)!, { ...item.citation, quote: `${label} … ${cell}` });
    }
    case 'number inside another': {
      // "4" in "24 ft": a quote that starts (or stops) inside a longer number of the section.
      if (!v || !item.unit) return null;
      const span = sectionSpan(doc, findSection(doc, item.citation.section)!);
      const text = doc.normalized.slice(span.from, span.to);
      const cuts: { quote: string; value: number }[] = [];
      for (const r of ctx.numbered) {
        for (const cell of r.seg.values) {
          const n = numbersIn(cell)[0];
          if (!n || n.text.length < 2) continue;
          const rest = cell.slice(n.end);
          for (let k = 1; k < n.text.length; k++) {
            const suffix = n.text.slice(k);
            const prefix = n.text.slice(0, k);
            if (/^\d/.test(suffix) && Number(suffix) !== n.value) cuts.push({ quote: `${suffix}${rest}`, value: Number(suffix) });
            if (/\d$/.test(prefix) && Number(prefix) !== n.value) cuts.push({ quote: `${r.seg.label} | ${prefix}`, value: Number(prefix) });
          }
        }
      }
      const cut = choose(cuts.filter((c) => text.includes(normalizeForMatch(c.quote))));
      return cut ? plain(item, cut.value, { ...item.citation, quote: cut.quote }) : null;
    }
  }
}

const NOT_APPLICABLE: Record<Kind, string> = {
  'another row': '(the uses: no number)',
  'another section': '',
  'swapped tiers': '(one number, or tiers of one value: nothing to swap)',
  permission: '(standards: no permission)',
  'changed value': '',
  'label skips to another row': '(the uses: no number)',
  'number inside another': '(the uses: no number)',
};

/** The rule each kind is refused by (the words of the checker's refusal). */
const WHY: Record<Kind, RegExp> = {
  'another row': /is not the row of|starts at the sub-row|sits under "Parking/,
  'another section': /is not .*'s section|is not in district .*'s section/,
  'swapped tiers': /is not the number .* states for the|is not what its condition's row/,
  permission: /the quote does not say|the quote says/,
  'changed value': /is not the number .* states for the|is not what its condition's row|does not name the use/,
  'label skips to another row': /is not a whole row|joins words of a sentence and of a table row|does not occur in .* as whole words|is not in section/,
  'number inside another': /as whole words and numbers|is not a whole row|is not in section/,
};

async function places(): Promise<Place[]> {
  const out: Place[] = [];
  for (const slug of listManifestSlugs(PLACES_DIR)) {
    const rules = await readRulesFileForVerify(slug, PLACES_DIR, SOURCE_DIR);
    const m = loadManifest(slug, PLACES_DIR);
    const { held } = await readHeld(citableDocuments(m), path.join(SOURCE_DIR, m.sourceFolder));
    out.push({ slug, held, vocab: vocabularyOf(rules), items: [...citationsOfRules(rules)] });
  }
  return out;
}

function contextOf(place: Place, item: CitedItem): Ctx {
  const doc = place.held.get(item.citation.document) as HeldDocument;
  const section = findSection(doc, item.citation.section)!;
  const t = sectionTables(doc, section, place.vocab);
  const own = new Set<TableRow>();
  const add = (r: TableRow) => {
    own.add(r);
    r.children.forEach(add);
  };
  if (item.value && !item.use && item.item !== 'otherStandards')
    for (const r of rowsOfStandard(t, place.vocab.standards[item.item as BuildingTypeStandardKey])) add(r.head);
  const numbered = t.rows.filter((r) => r.seg.values.some((c) => firstNumber(c) !== undefined));
  return { place, item, doc, otherRows: numbered.filter((r) => !own.has(r)), numbered, rows: t.rows };
}

test('mutation: every kind of wrong value is refused for every shipped cited value, naming the value', async () => {
  const all = await places();
  const counts = new Map<Kind, { variants: number; refused: number; values: number; notApplicable: number }>(
    KINDS.map((k) => [k, { variants: 0, refused: 0, values: 0, notApplicable: 0 }]),
  );
  let values = 0;
  let run = 0;
  const accepted: string[] = [];
  const offReason: string[] = [];
  for (const place of all) {
    for (const item of place.items) {
      values++;
      // The shipped value itself verifies.
      assert.equal(
        checkOne(place.held, place.vocab, item).ok,
        true,
        `${place.slug} ${item.district} ${item.buildingType ?? ''} ${item.item} verifies as shipped`,
      );
      const ctx = contextOf(place, item);
      for (const kind of KINDS) {
        const c = counts.get(kind)!;
        let applied = false;
        fc.assert(
          fc.property(fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (seeds) => {
            let i = 0;
            const wrong = variant(kind, ctx, (n) => seeds[i++ % seeds.length]! % n);
            if (!wrong) return true;
            applied = true;
            c.variants++;
            const check = checkOne(place.held, place.vocab, wrong);
            const names = check.district === item.district && check.item === item.item && check.buildingType === item.buildingType;
            if (!check.ok && names) {
              c.refused++;
              if (!WHY[kind].test(check.why!)) offReason.push(`${kind}: ${check.why}`);
            } else
              accepted.push(
                `${place.slug} ${item.district}${item.buildingType ? ` / ${item.buildingType}` : ''} ${item.item} [${kind}]: ${JSON.stringify(wrong.value?.value ?? wrong.value?.tiers ?? wrong.use)} "${wrong.citation.quote}" § ${wrong.citation.section}`,
              );
            return !check.ok && names;
          }),
          { numRuns: RUNS, seed: SEED + run++ },
        );
        if (applied) c.values++;
        else c.notApplicable++;
      }
    }
  }
  console.log(
    [
      `${values} cited values (${all.map((p) => `${p.slug} ${p.items.length}`).join(', ')}); fast-check seed ${SEED}`,
      'kind | values it applies to | variants | refused | not applicable',
      ...[...counts].map(([k, c]) => `${k} | ${c.values} | ${c.variants} | ${c.refused} | ${c.notApplicable} ${NOT_APPLICABLE[k]}`),
    ].join('\n'),
  );
  assert.deepEqual(accepted, []);
  assert.deepEqual(offReason.slice(0, 20), [], 'each kind is refused by its own rule');
  for (const [k, c] of counts) assert.ok(c.variants > 0 && c.refused === c.variants, `${k}: ${c.refused} of ${c.variants}`);
  // Every standard's value meets the value kinds; every use, the use kinds.
  const standards = all.flatMap((p) => p.items.filter((i) => i.value)).length;
  const uses = all.flatMap((p) => p.items.filter((i) => i.use)).length;
  for (const k of ['another row', 'another section', 'changed value', 'label skips to another row', 'number inside another'] as const)
    assert.equal(counts.get(k)!.values, standards + (k === 'another section' || k === 'changed value' ? uses : 0), k);
  assert.equal(counts.get('permission')!.values, uses);
});
