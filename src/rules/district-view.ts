// A district's rules as a reader sees them: every value with its status, unit, condition and, when
// cited, the verified citation (document, section, quote, the service's page for it). One shape for
// cityInventory, the REST coverage lookup and the /coverage/<place> page.
import { BUILDING_TYPE_STANDARD_UNITS, type Citation, type DistrictRules, type PlaceRules, type RuleValue } from '../core/rules-schema.ts';
import { citationsOfRules } from './verify-citations.ts';

export interface RuleValueView {
  standard: string;
  unit: string;
  status: string;
  /** The value when the rule states one; null otherwise (the status says why). */
  value: number | null;
  /** Conditional values, tier by tier, as the bylaw states them. */
  tiers?: { when: string[]; values: string[] }[];
  condition?: string;
  note?: string;
  /** The source id that states there is no limit, on a null unverified value (docs/snapshot.md). */
  statedNoLimit?: string;
  citation?: Citation;
  /** How an ambiguous row is read (a two-number row as min then max), with the ordinance's words that settle it, verified like the citation. */
  reading?: { columns: 'min/max'; note: string; support: Citation };
}

export interface DistrictRulesView {
  place: string;
  code: string;
  name: string;
  governedBy?: string;
  note?: string;
  standards: RuleValueView[];
  buildingTypes: { name: string; section: string; allowed?: string; standards: RuleValueView[]; notExtracted: { standard: string; reason: string }[] }[];
  uses: { use: string; permission: string; status: string; condition?: string; note?: string; citation?: Citation }[];
  /** Values and uses here whose citation verified against a held document. */
  citedValues: number;
}

export interface DistrictSummary {
  code: string;
  name: string;
  buildingTypes: string[];
  citedValues: number;
}

function valueView(standard: string, v: RuleValue): RuleValueView {
  return {
    standard,
    unit: (BUILDING_TYPE_STANDARD_UNITS as Record<string, string>)[standard] ?? '',
    status: v.status,
    value: v.value ?? null,
    ...(v.tiers ? { tiers: v.tiers.map((t) => ({ when: t.when, values: t.values })) } : {}),
    ...(v.condition ? { condition: v.condition } : {}),
    ...(v.note ? { note: v.note } : {}),
    ...(v.statedNoLimit ? { statedNoLimit: v.statedNoLimit } : {}),
    ...(v.citation ? { citation: v.citation } : {}),
    ...(v.reading ? { reading: { columns: v.reading.columns, note: v.reading.note, support: v.reading.support } } : {}),
  };
}

const standardsOf = (s: Record<string, RuleValue | undefined>) => Object.entries(s).flatMap(([k, v]) => (v ? [valueView(k, v)] : []));

function citedIn(rules: PlaceRules, code: string): number {
  let n = 0;
  for (const c of citationsOfRules(rules)) if (c.district === code) n++;
  return n;
}

/** Every citation of the place (each verified when the rules loaded). */
export function citedValueCount(rules: PlaceRules): number {
  let n = 0;
  for (const _ of citationsOfRules(rules)) n++;
  return n;
}

export function districtSummaries(rules: PlaceRules): DistrictSummary[] {
  return Object.entries(rules.districts).map(([code, d]) => ({
    code,
    name: d.name,
    buildingTypes: Object.keys(d.buildingTypes ?? {}),
    citedValues: citedIn(rules, code),
  }));
}

export function districtView(rules: PlaceRules, code: string, d: DistrictRules): DistrictRulesView {
  return {
    place: rules.slug,
    code,
    name: d.name,
    ...(d.governedBy ? { governedBy: d.governedBy } : {}),
    ...(d.note ? { note: d.note } : {}),
    standards: standardsOf(d.standards),
    buildingTypes: Object.values(d.buildingTypes ?? {}).map((t) => ({
      name: t.name,
      section: t.section,
      ...(t.allowed ? { allowed: t.allowed } : {}),
      standards: standardsOf(t.standards),
      notExtracted: Object.entries(t.notExtracted ?? {}).map(([standard, reason]) => ({ standard, reason })),
    })),
    uses: d.uses.map((u) => ({
      use: u.use,
      permission: u.permission,
      status: u.status,
      ...(u.condition ? { condition: u.condition } : {}),
      ...(u.note ? { note: u.note } : {}),
      ...(u.citation ? { citation: u.citation } : {}),
    })),
    citedValues: citedIn(rules, code),
  };
}
