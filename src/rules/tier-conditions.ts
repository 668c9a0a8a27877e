// The conditions a table's rows are stated under, which a caller may state like the district: a
// Somerville building type's side setback is 5 ft with "No Driveway Access" and 3 ft with "Front
// Driveway Access", and nothing siteline holds says which a lot has. Read from the rules' own tier
// words, never listed per building type: each tier word belongs to a family of sub-rows (the same
// families the citation checker reads tables by: driveway, lotline, alley, abutting, and a place's
// own such as Somerville's "sequence"); the words of one family in one table are one condition and
// its values. A word no family names (UR Apartment Building's "Not abutting NR", the row without a
// condition of its own) joins the family of its standard's other tiers. A family with one value in a
// table (Semi-Detached House's "Party Lot Line": the party wall's side, beside the other side's
// driveway rows) is not a choice and is not listed. Rows by storey ("1 st – 3 rd Story Abutting NR or
// LHD", "4 th Story Abutting NR or LHD") are one value ("Abutting NR or LHD") whose rows differ by
// storey: stating it leaves the value unresolved, with both rows named. docs/snapshot.md, "Stated conditions".
import { SitelineError } from '../core/errors.ts';
import { isExpression } from '../core/condition-expression.ts';
import { conditionWordKey, type StatedCondition } from '../core/envelope.ts';
import type { DistrictRules, PlaceRules, RuleValue } from '../core/rules-schema.ts';
import type { ConditionOption } from '../core/snapshot-types.ts';
import { conditionFamily, vocabularyOf, type Vocabulary } from './citation-vocabulary.ts';

/** How many conditions a caller may state at once (a table has at most a few). */
export const MAX_STATED_CONDITIONS = 10;

/** One table's conditions: key -> its name, values (in the rules' order), each value's tier words, and the standards they resolve. */
interface TableCondition {
  key: string;
  name: string;
  values: string[];
  /** Parallel to values: the tier words that say each one (the value itself, or its rows by storey). */
  words: string[][];
  standards: string[];
}

/** A row by storey ("1 st – 3 rd Story ", "4 th Story "): its value is the words after it. */
const STOREY_ROW = /^\d+\s*(?:st|nd|rd|th)\b.*?\bstor(?:y|ey|ies|eys)\s+/i;

function tableConditions(standards: Partial<Record<string, RuleValue>>, vocab: Vocabulary): TableCondition[] {
  const byKey = new Map<string, TableCondition>();
  const add = (key: string, word: string, standard: string) => {
    let c = byKey.get(key);
    if (!c) byKey.set(key, (c = { key, name: vocab.conditionNames[key] ?? key.charAt(0).toUpperCase() + key.slice(1), values: [], words: [], standards: [] }));
    const value = word.replace(STOREY_ROW, '');
    let i = c.values.findIndex((v) => conditionWordKey(v) === conditionWordKey(value));
    if (i < 0) i = c.values.push(value) - 1;
    if (!c.words[i]) c.words[i] = [];
    if (!c.words[i]!.some((w) => conditionWordKey(w) === conditionWordKey(word))) c.words[i]!.push(word);
    if (!c.standards.includes(standard)) c.standards.push(standard);
  };
  for (const [standard, rv] of Object.entries(standards)) {
    if (!rv?.tiers) continue;
    const words = rv.tiers.flatMap((t) => t.when);
    const families = new Map(words.map((w) => [w, conditionFamily(vocab, w)]));
    // The families this standard's rows are named by: a word of none joins the one family, if there is one.
    const named = [...new Set([...families.values()].filter((f): f is string => f !== null))];
    for (const w of words) {
      const f = families.get(w) ?? (named.length === 1 && !isExpression(w) ? named[0]! : null);
      if (f) add(f, w, standard);
    }
  }
  // A family with one value is no choice (it names a row beside the others, not an alternative).
  return [...byKey.values()].filter((c) => c.values.length > 1);
}

/** The standards a table states: a building type's own, or a district's (with its catch-all). */
function standardsOf(d: DistrictRules, buildingType: string | null): Partial<Record<string, RuleValue>> | null {
  if (d.buildingTypes) return buildingType ? (d.buildingTypes[buildingType]?.standards ?? null) : null;
  return { ...d.standards, ...(d.otherStandards ? { otherStandards: d.otherStandards } : {}) };
}

/** Every condition family's name for a caller, by key (the place's vocabulary). */
export function conditionNames(rules: PlaceRules): Readonly<Record<string, string>> {
  return vocabularyOf(rules).conditionNames;
}

/**
 * The conditions a caller may state for a district's table (its building type's where it zones by
 * type; null type lists none there, since each type has its own table).
 */
export function conditionsOfTable(rules: PlaceRules, d: DistrictRules, buildingType: string | null): TableCondition[] {
  const standards = standardsOf(d, buildingType);
  return standards ? tableConditions(standards, vocabularyOf(rules)) : [];
}

/**
 * A district's conditions for its choice block: each condition once per set of values, with the
 * building types whose tables state it under those values (none where the district has no types).
 */
export function districtConditions(rules: PlaceRules, d: DistrictRules): ConditionOption[] {
  const out: ConditionOption[] = [];
  const types = d.buildingTypes ? Object.keys(d.buildingTypes) : [null];
  for (const t of types) {
    for (const c of conditionsOfTable(rules, d, t)) {
      const same = out.find(
        (o) => o.key === c.key && o.values.length === c.values.length && o.values.every((v, i) => conditionWordKey(v) === conditionWordKey(c.values[i]!)),
      );
      if (same) {
        if (t) same.buildingTypes!.push(t);
        for (const s of c.standards) if (!same.standards.includes(s)) same.standards.push(s);
      } else out.push({ key: c.key, name: c.name, values: [...c.values], standards: [...c.standards], ...(t ? { buildingTypes: [t] } : {}) });
    }
  }
  return out;
}

const fold = (s: string) => conditionWordKey(s);
const listed = (cs: readonly TableCondition[]) => cs.map((c) => `${c.name} (${c.values.join(', ')})`).join('; ');

/**
 * The conditions a caller stated, each "Name=Value", "key=Value" or the value alone (a value belongs
 * to one condition of its table), checked against the table's own: an unknown condition or value, or
 * two values of one condition, is bad input naming the table's conditions and values.
 */
export function readStatedConditions(
  texts: readonly string[],
  table: readonly TableCondition[],
  tableName: string,
  names: Readonly<Record<string, string>> = {},
): StatedCondition[] {
  if (texts.length > MAX_STATED_CONDITIONS)
    throw new SitelineError('bad_input', `At most ${MAX_STATED_CONDITIONS} conditions may be stated (${texts.length} were).`);
  if (texts.length && !table.length)
    throw new SitelineError('bad_input', `${tableName} states no value under a condition a caller can state: leave the conditions out.`);
  const out: StatedCondition[] = [];
  for (const raw of texts) {
    const text = raw.replace(/\s+/g, ' ').trim();
    const eq = text.indexOf('=');
    let c: TableCondition | undefined;
    let valueText = text;
    if (eq >= 0) {
      const name = fold(text.slice(0, eq));
      valueText = text.slice(eq + 1).trim();
      c = table.find((x) => fold(x.key) === name || fold(x.name) === name);
      // A condition of another table named by its key (a form's field): said by its name.
      const said = text.slice(0, eq).trim();
      if (!c)
        throw new SitelineError('bad_input', `"${names[said.toLowerCase()] ?? said}" is not a condition of ${tableName}. Its conditions: ${listed(table)}.`);
    } else c = table.find((x) => x.values.some((v) => fold(v) === fold(valueText)));
    const value = c?.values.find((v) => fold(v) === fold(valueText));
    if (!c || !value) {
      throw new SitelineError(
        'bad_input',
        c
          ? `"${valueText}" is not a value of ${c.name} in ${tableName}. Its values: ${c.values.join(', ')}.`
          : `"${valueText}" is not a condition of ${tableName}. Its conditions: ${listed(table)}.`,
      );
    }
    const twice = out.find((o) => o.key === c!.key);
    if (twice && twice.value !== value) throw new SitelineError('bad_input', `${c.name} was stated twice (${twice.value}; ${value}): state one.`);
    if (!twice) out.push(statedOf(c, value));
  }
  // In the table's order, whatever order they were stated in.
  return table.flatMap((t) => out.filter((o) => o.key === t.key));
}

/** A value of a table's condition as stated: the tier words it makes hold, and those of the other values, fail. */
function statedOf(c: TableCondition, value: string): StatedCondition {
  const i = c.values.indexOf(value);
  return { key: c.key, name: c.name, value, holds: [...c.words[i]!], fails: c.words.filter((_, j) => j !== i).flat() };
}

/** Stated conditions as kept (with a lot, in an answer), made whole again against the table; one the table no longer has is dropped. */
export function statedAgainstTable(kept: readonly { key: string; value: string }[] | undefined, table: readonly TableCondition[]): StatedCondition[] {
  const out: StatedCondition[] = [];
  for (const k of kept ?? []) {
    const c = table.find((t) => t.key === k.key);
    const value = c?.values.find((v) => fold(v) === fold(k.value));
    if (c && value) out.push(statedOf(c, value));
  }
  return out;
}

/** The envelope's conditions input: the stated ones, and the table's others nobody stated (named in notes). */
export function envelopeConditions(
  table: readonly TableCondition[],
  stated: readonly StatedCondition[],
): { stated: StatedCondition[]; open: { name: string; words: string[] }[] } | null {
  if (!table.length) return null;
  return { stated: [...stated], open: table.filter((t) => !stated.some((s) => s.key === t.key)).map((t) => ({ name: t.name, words: t.words.flat() })) };
}

export type { TableCondition };
