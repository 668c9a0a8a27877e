// The building envelope: the district's dimensional standards resolved for one lot, plus the values
// derived from them. Every member is a Sourced value whose status says where it came from; see
// docs/envelope.md for the member names, units and derivation rules.
import type { PermittedUse, Sourced } from './snapshot-types.ts';
import { UNKNOWN_VALUE_STATUSES, weakestStatus, type ValueStatus } from './statuses.ts';
import {
  BUILDING_TYPE_STANDARD_UNITS,
  STANDARD_KEYS,
  STANDARD_UNITS,
  type BuildingTypeStandardKey,
  type PlaceRules,
  type RuleValue,
  type StandardKey,
  type DistrictRules,
} from './rules-schema.ts';
import { findDistrict } from './rules-schema.ts';
import { evaluateExpression, type Vars } from './condition-expression.ts';

export interface EnvelopeLot {
  areaSqft: number | null;
  frontageFt: number | null;
  depthFt: number | null;
  cornerLot: boolean | null;
  country: 'US' | 'CA';
}

export interface EnvelopeInput {
  rules: PlaceRules;
  primaryZone: string | null;
  zones: { code: string; share: number }[];
  overlays: { code: string; name: string | null }[];
  lot: EnvelopeLot;
  /** Residential type asked about (OZFS vocabulary: 1_unit, 2_unit, 3_unit, 4_plus, townhome); resolves res_type conditions. */
  residentialType?: string | null;
  /** Facts about the intended building, when the caller knows them; they resolve conditions that depend on them. */
  building?: {
    groundFloorCommercial?: boolean | null;
    floors?: number | null;
    totalUnits?: number | null;
    /** Where the district zones by building type (Somerville): the type intended, as the rules file names it. */
    buildingType?: string | null;
    /**
     * The conditions a table's rows are stated under (driveway access, alley, ...), as the caller states
     * them (src/rules/tier-conditions.ts): a tier naming a stated value holds, one naming another value of
     * the same condition does not. `open`: the conditions of the table nobody stated, named in the notes.
     */
    conditions?: { stated: readonly StatedCondition[]; open?: readonly { name: string; words: readonly string[] }[] } | null;
  };
}

/** A condition of a table's rows stated by the caller: its value, and the tier words it makes hold or fail. */
export interface StatedCondition {
  /** The condition's key (`driveway`) and name (`Driveway access`). */
  key: string;
  name: string;
  /** The value as the table writes it ("Front Driveway Access"). */
  value: string;
  /** Tier words that say this value (the value, or its rows by storey: "1 st – 3 rd Story Abutting NR or LHD"). */
  holds: readonly string[];
  /** Tier words of the condition's other values in this table: tiers naming them do not apply. */
  fails: readonly string[];
}

/** The words a stated condition's source is given in, on every value it resolves. */
export const CONDITION_SOURCE = 'stated by the caller';

/** A tier word as compared with a stated one: case, spaces and dashes folded. */
export function conditionWordKey(w: string): string {
  return w
    .normalize('NFKC')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** What the stated conditions say of each tier word: true (stated), false (another value stated). */
type StatedWords = ReadonlyMap<string, { holds: boolean; condition: StatedCondition }>;

function statedWords(stated: readonly StatedCondition[] | undefined): StatedWords | null {
  if (!stated?.length) return null;
  const out = new Map<string, { holds: boolean; condition: StatedCondition }>();
  for (const c of stated) {
    for (const w of c.fails) out.set(conditionWordKey(w), { holds: false, condition: c });
    for (const w of c.holds) out.set(conditionWordKey(w), { holds: true, condition: c });
  }
  return out;
}

export interface EnvelopeResult {
  envelope: Record<string, Sourced>;
  permittedUses: PermittedUse[];
  notes: string[];
  /** "District C-1 (name) under <bylaw>, <date>.": apart, because a snapshot says it in zones and sources already. */
  districtNote?: string;
}

/** Members computed by the service from the standards and the lot. */
const DERIVED_UNITS = {
  maxFloorAreaSqft: 'sqft',
  maxDwellingUnits: 'units',
  maxDwellingUnitsByDensity: 'units',
  maxFootprintSqft: 'sqft',
  buildableWidthFt: 'ft',
  buildableDepthFt: 'ft',
} as const;
export type DerivedKey = keyof typeof DERIVED_UNITS;

/** Every envelope member, in the order a snapshot lists them, with its unit. */
export const ENVELOPE_MEMBERS: readonly { name: StandardKey | DerivedKey; unit: string; derived: boolean }[] = [
  ...STANDARD_KEYS.map((k) => ({ name: k, unit: STANDARD_UNITS[k], derived: false })),
  ...(Object.keys(DERIVED_UNITS) as DerivedKey[]).map((k) => ({ name: k, unit: DERIVED_UNITS[k], derived: true })),
];

const SQFT_PER_ACRE = 43560;
const round = (x: number) => Math.round(x * 100) / 100;

function whereToRead(rules: PlaceRules, d: DistrictRules): string {
  return d.governedBy ? `${d.governedBy} of ${rules.bylaw.name}` : d.sourceUrl ? d.sourceUrl : bylawRef(rules);
}

/** The bylaw named for a reader: with its URL, or with the note saying why there is none. */
function bylawRef(rules: PlaceRules): string {
  return rules.bylaw.url ? `${rules.bylaw.name} (${rules.bylaw.url})` : `${rules.bylaw.name} (${rules.bylaw.note ?? 'no ordinance text available'})`;
}

function lotVars(lot: EnvelopeLot, residentialType: string | null | undefined, building: EnvelopeInput['building']): Vars {
  return {
    ground_floor_commercial: building?.groundFloorCommercial ?? null,
    floors: building?.floors ?? null,
    total_units: building?.totalUnits ?? null,
    lot_area: lot.areaSqft === null ? null : lot.areaSqft / SQFT_PER_ACRE,
    lot_area_sqft: lot.areaSqft,
    lot_width: lot.frontageFt,
    lot_depth: lot.depthFt,
    corner_lot: lot.cornerLot,
    res_type: residentialType ?? null,
  };
}

type Truth = true | false | 'unknown';
function holds(cond: string, vars: Vars, said: StatedWords | null): Truth {
  const s = said?.get(conditionWordKey(cond));
  if (s) return s.holds;
  const r = evaluateExpression(cond, vars);
  if (!r.ok || typeof r.value !== 'boolean') return 'unknown';
  return r.value;
}

/** The value of a tier for this lot, or null when it cannot be computed (prose choice, unknown input). */
function tierValue(values: string[], pick: 'min' | 'max' | undefined, vars: Vars): { value: number; usedLot: boolean } | null {
  if (values.length > 1 && !pick) return null;
  const nums: number[] = [];
  let usedLot = false;
  for (const v of values) {
    const r = evaluateExpression(v, vars);
    if (!r.ok || typeof r.value !== 'number' || !Number.isFinite(r.value)) return null;
    if (r.usedVars.length) usedLot = true;
    nums.push(r.value);
  }
  return { value: pick === 'min' ? Math.min(...nums) : Math.max(...nums), usedLot };
}

const tierText = (t: { when: string[]; values: string[]; pick?: 'min' | 'max' }) =>
  `${t.when.length ? t.when.join(' and ') : 'always'}: ${t.pick ? `${t.pick} of ` : ''}${t.values.join(' | ')}`;

/** What resolves a table's tiers besides the lot: the conditions stated, and those nobody stated. */
interface TierContext {
  said: StatedWords | null;
  open: readonly { name: string; words: readonly string[] }[];
}
const NO_CONDITIONS: TierContext = { said: null, open: [] };

/** A tier's words as a value's condition names them: a stated one with its condition and source. */
function whenText(when: readonly string[], ctx: TierContext): string {
  return when
    .map((w) => {
      const s = ctx.said?.get(conditionWordKey(w));
      if (!s?.holds) return w;
      const c = s.condition;
      return `${w} (${c.name.toLowerCase()}${conditionWordKey(w) === conditionWordKey(c.value) ? '' : `: ${c.value}`}, ${CONDITION_SOURCE})`;
    })
    .join(' and ');
}

/** The conditions nobody stated that the tiers left open depend on ("Driveway access"), for the note. */
function openConditionsOf(tiers: readonly { when: string[] }[], ctx: TierContext): string[] {
  if (!ctx.open.length) return [];
  const words = new Set(tiers.flatMap((t) => t.when.map(conditionWordKey)));
  return ctx.open.filter((c) => c.words.some((w) => words.has(conditionWordKey(w)))).map((c) => c.name);
}

/** A conditional rule resolved against the lot (cited_conditional) or left unresolved (conditional_unresolved). */
function resolveTiers(rv: RuleValue & { tiers: NonNullable<RuleValue['tiers']> }, unit: string, vars: Vars, ctx: TierContext = NO_CONDITIONS): Sourced {
  const scale = rv.scale ?? 1;
  const judged = rv.tiers.map((t) => {
    const truths = t.when.map((c) => holds(c, vars, ctx.said));
    return { t, all: truths.every((x) => x === true), none: truths.some((x) => x === false) };
  });
  const possible = judged.filter((j) => !j.none);
  const applicable = possible.filter((j) => j.all);
  // The condition lists the tiers this lot does not exclude (all of them when it excludes every one).
  const unresolved = (why: string, shown = possible.map((j) => j.t)): Sourced => ({
    value: null,
    status: 'conditional_unresolved',
    unit,
    ...(rv.citation ? { citation: rv.citation } : {}),
    condition: `${rv.condition ? `${rv.condition}; ` : ''}${shown.map(tierText).join('; ')}`,
    note: `${why} Unknown, not unlimited.${rv.note ? ` ${rv.note}` : ''}`,
  });
  if (possible.length === 0) return unresolved('None of the conditional tiers applies to this site.', rv.tiers);
  const candidates = applicable.length === possible.length ? applicable : possible;
  const vals = candidates.map((j) => tierValue(j.t.values, j.t.pick, vars));
  const first = vals[0];
  if (!first || vals.some((v) => !v || v.value !== first.value)) {
    // A stated condition whose rows differ by storey ("1 st – 3 rd Story Abutting NR or LHD" 10 ft, "4 th Story ..." 30 ft).
    const said = ctx.said;
    if (said && applicable.length === possible.length && applicable.length > 1 && applicable.some((j) => j.t.when.some((w) => said.has(conditionWordKey(w)))))
      return unresolved('Several rows apply, with different values, each for a part of the building (such as its storeys): no one value can be given.');
    if (applicable.length === possible.length) return unresolved('The tier that applies states its value in words or needs an input this lot does not have.');
    // A condition of the table the caller may state (driveway access, alley, ...): named, with how to resolve it.
    const open = openConditionsOf(
      possible.map((j) => j.t),
      ctx,
    );
    return unresolved(
      open.length
        ? `Depends on ${open.join(' and ').toLowerCase()}, which ${open.length > 1 ? 'were' : 'was'} not stated: state ${open.length > 1 ? 'them' : 'it'} (the answer's districtChoice lists the values) to resolve this value.`
        : 'The conditions could not be evaluated for this site (prose, or an input such as the building type or street class that is not known).',
    );
  }
  const usedLot = vals.some((v) => v!.usedLot);
  const conditional = candidates.some((j) => j.t.when.length > 0);
  const value = round(first.value * scale);
  const tierCondition = candidates.map((j) => (j.t.when.length ? whenText(j.t.when, ctx) : 'always')).join(' or ');
  const condition = rv.condition ? `${rv.condition}; ${tierCondition}` : tierCondition;
  const sameNote = candidates.length > 1 ? ' Every tier that may apply gives the same value.' : '';
  if (rv.status === 'unverified_default') return { value, status: 'unverified_default', unit, condition, note: `${rv.note ?? ''}${sameNote}`.trim() };
  const status: ValueStatus = conditional ? 'cited_conditional' : usedLot ? 'derived_from_cited' : 'cited';
  return {
    value,
    status,
    unit,
    ...(rv.citation ? { citation: rv.citation } : {}),
    ...(conditional ? { condition } : {}),
    ...(status === 'derived_from_cited' ? { inputs: ['lot'] } : {}),
    note: `${usedLot ? `Computed from the bylaw formula (${candidates.map((j) => j.t.values.join(' | ')).join('; ')}) and the lot. ` : ''}${rv.note ?? ''}${sameNote}`.trim(),
  };
}

/**
 * A standard of a district that zones by building type: the intended type's own value when the caller
 * names the type; otherwise conditional_unresolved listing each type's value (the standard depends on
 * a choice the service does not know). Null when the district does not set the standard per type.
 */
function byBuildingType(
  d: DistrictRules,
  key: BuildingTypeStandardKey,
  unit: string,
  buildingType: string | null | undefined,
  vars: Vars,
  ctx: TierContext,
): Sourced | null {
  const types = d.buildingTypes;
  if (!types || (d.standards as Partial<Record<BuildingTypeStandardKey, RuleValue>>)[key]) return null;
  const chosen = buildingType ? types[buildingType] : undefined;
  if (chosen) {
    const rv = chosen.standards[key];
    if (!rv) {
      const why = chosen.notExtracted?.[key];
      return { value: null, status: 'not_extracted', unit, note: why ?? `The ${chosen.name} table (§${chosen.section}) states no such standard.` };
    }
    return rv.tiers ? resolveTiers({ ...rv, tiers: rv.tiers }, unit, vars, ctx) : plainValue(rv, unit);
  }
  const stated = Object.values(types).filter((t) => t.standards[key]);
  if (stated.length === 0) return null;
  const text = (rv: RuleValue) =>
    rv.value !== undefined && rv.value !== null ? String(rv.value) : (rv.tiers ?? []).map((t) => `${t.when.join(' and ')} ${t.values.join(' or ')}`).join(', ');
  return {
    value: null,
    status: 'conditional_unresolved',
    unit,
    condition: `Depends on the building type: ${stated.map((t) => `${t.name} (§${t.section}) ${text(t.standards[key]!)}`).join('; ')}`,
    note: 'Set per building type in this district; name the building type to resolve it.',
  };
}

/**
 * The minimum sum of the side setbacks where a district's building-type tables state it: the stated
 * type's value, or unresolved while the type is not stated. Null where no table states one (every
 * place that does not zone by building type, so their envelopes have no such member).
 */
function sideYardSum(d: DistrictRules, buildingType: string | null | undefined, vars: Vars, ctx: TierContext): Sourced | null {
  const types = d.buildingTypes!;
  const chosen = buildingType ? types[buildingType] : undefined;
  if (chosen && !chosen.standards.minSideYardSumFt) return null;
  return byBuildingType(d, 'minSideYardSumFt', BUILDING_TYPE_STANDARD_UNITS.minSideYardSumFt, buildingType, vars, ctx);
}

function plainValue(rv: RuleValue, unit: string): Sourced {
  const out: Sourced = { value: rv.value ?? null, status: rv.status, unit };
  if (rv.citation) out.citation = rv.citation;
  if (rv.condition) out.condition = rv.condition;
  if (rv.note) out.note = rv.note;
  if (rv.statedNoLimit) out.statedNoLimit = rv.statedNoLimit;
  return out;
}

function resolveStandard(
  rules: PlaceRules,
  code: string,
  d: DistrictRules,
  key: StandardKey,
  vars: Vars,
  buildingType: string | null | undefined,
  ctx: TierContext,
): Sourced {
  const unit = STANDARD_UNITS[key];
  const typed = byBuildingType(d, key, unit, buildingType, vars, ctx);
  if (typed) return typed;
  const rv = d.standards[key] ?? d.otherStandards;
  if (!rv) return { value: null, status: 'not_extracted', unit, note: `Not extracted for district ${code}; read ${whereToRead(rules, d)}.` };
  if (rv.tiers) return resolveTiers({ ...rv, tiers: rv.tiers }, unit, vars, ctx);
  const out: Sourced = { value: rv.value ?? null, status: rv.status, unit };
  if (rv.citation) out.citation = rv.citation;
  if (rv.condition) out.condition = rv.condition;
  out.note = rv.note ?? (rv.status === 'site_specific_schedule' ? `District ${code} is governed by ${whereToRead(rules, d)}.` : undefined);
  if (out.note === undefined) delete out.note;
  if (rv.statedNoLimit) out.statedNoLimit = rv.statedNoLimit;
  return out;
}

const GOOD_INPUT: readonly ValueStatus[] = ['cited', 'cited_conditional', 'derived_from_cited', 'no_limit_in_bylaw'];

interface RuleInput {
  member: StandardKey | 'minSideYardSumFt';
  /** How a no_limit_in_bylaw input enters: the result has no limit either, or the input counts as this number. */
  noLimit: 'propagates' | number;
}
type LotMeasure = 'areaSqft' | 'frontageFt' | 'depthFt';

/**
 * One derived member's recipe: its rule inputs, the lot measurement it uses and the arithmetic. The
 * recipes are constants, so a snapshot builds no closures and no input lists for them (the `inputs`
 * array a derived value names is shared and frozen).
 */
interface Recipe {
  unit: string;
  rules: readonly RuleInput[];
  lot: LotMeasure;
  inputs: readonly string[];
  compute: (a: number, b: number, lot: number) => number;
}
function recipe(unit: string, rules: RuleInput[], lot: LotMeasure, compute: Recipe['compute']): Recipe {
  const inputs = Object.freeze([...new Set([...rules.map((r) => r.member), `lot.${lot}`])]);
  return Object.freeze({ unit, rules: Object.freeze(rules), lot, inputs, compute });
}
const RECIPES = {
  maxFloorAreaSqft: recipe('sqft', [{ member: 'maxFar', noLimit: 'propagates' }], 'areaSqft', (far, _, a) => far * a),
  maxDwellingUnits: recipe('units', [{ member: 'minLotAreaPerUnitSqft', noLimit: 'propagates' }], 'areaSqft', (per, _, a) =>
    per > 0 ? Math.floor(a / per) : 0,
  ),
  maxDwellingUnitsByDensity: recipe('units', [{ member: 'maxDensityUnitsPerAcre', noLimit: 'propagates' }], 'areaSqft', (d, _, a) =>
    Math.floor((d * a) / SQFT_PER_ACRE + 1e-9),
  ),
  maxFootprintSqft: recipe('sqft', [{ member: 'maxLotCoveragePct', noLimit: 'propagates' }], 'areaSqft', (pct, _, a) => (pct / 100) * a),
  // the street side of a corner lot keeps its street side yard; an interior lot has two side yards
  buildableWidthFtInterior: recipe(
    'ft',
    [
      { member: 'minSideYardFt', noLimit: 0 },
      { member: 'minSideYardFt', noLimit: 0 },
    ],
    'frontageFt',
    (a, b, w) => w - a - b,
  ),
  buildableWidthFtCorner: recipe(
    'ft',
    [
      { member: 'minSideYardFt', noLimit: 0 },
      { member: 'minStreetSideYardFt', noLimit: 0 },
    ],
    'frontageFt',
    (a, b, w) => w - a - b,
  ),
  // a table that states the minimum sum of the side setbacks: the two side yards are each at least the minimum and together at least the sum
  buildableWidthFtInteriorSum: recipe(
    'ft',
    [
      { member: 'minSideYardFt', noLimit: 0 },
      { member: 'minSideYardSumFt', noLimit: 0 },
    ],
    'frontageFt',
    (a, sum, w) => w - Math.max(2 * a, sum),
  ),
  buildableDepthFt: recipe(
    'ft',
    [
      { member: 'minFrontYardFt', noLimit: 0 },
      { member: 'minRearYardFt', noLimit: 0 },
    ],
    'depthFt',
    (f, b, d) => d - f - b,
  ),
} as const;
const INTERIOR_ASSUMED = 'an interior lot (whether the lot is a corner lot is not known), so both side yards are interior side yards';

/** The number a rule input enters a recipe with: its value, or what no limit counts as. */
function inputNumber(r: Recipe, s: Sourced, i: number): number {
  return s.status === 'no_limit_in_bylaw' ? (r.rules[i]!.noLimit as number) : (s.value as number);
}

/**
 * A derived member: derived_from_cited only when every rule input is cited; otherwise the weakest
 * input's status. A missing lot measurement gives `missing`; an assumption made by the service gives `defaulted`.
 */
function derive(env: Record<string, Sourced>, r: Recipe, lotValue: number | null, assumption?: string): Sourced {
  const { unit, inputs } = r;
  const s0 = env[r.rules[0]!.member]!;
  const s1 = r.rules.length > 1 ? env[r.rules[1]!.member]! : undefined;
  for (let i = 0; i < r.rules.length; i++) {
    const s = i === 0 ? s0 : s1!;
    if (s.status === 'no_limit_in_bylaw' && r.rules[i]!.noLimit === 'propagates')
      return {
        value: null,
        status: 'no_limit_in_bylaw',
        unit,
        inputs: inputs as string[],
        ...(s.citation ? { citation: s.citation } : {}),
        note: `No limit: ${r.rules[i]!.member} is not limited by the bylaw, so this derived limit is not either.`,
      };
  }
  const unknown0 = s0.value === null && s0.status !== 'no_limit_in_bylaw';
  const unknown1 = s1 !== undefined && s1.value === null && s1.status !== 'no_limit_in_bylaw';
  if (unknown0 || unknown1 || lotValue === null) {
    // No note: the status is the weakest input's, and `inputs` names them (each with its own status).
    let status: ValueStatus = 'cited';
    if (unknown0) status = weakestStatus([s0.status]);
    if (unknown1) status = weakestStatus([status, s1!.status]);
    if (lotValue === null) status = weakestStatus([status, 'missing']);
    return { value: null, status, unit, inputs: inputs as string[] };
  }
  const value = round(r.compute(inputNumber(r, s0, 0), s1 ? inputNumber(r, s1, 1) : 0, lotValue));
  const good0 = GOOD_INPUT.includes(s0.status);
  const good1 = s1 === undefined || GOOD_INPUT.includes(s1.status);
  let status: ValueStatus;
  if (good0 && good1 && !assumption) status = 'derived_from_cited';
  else {
    status = 'cited';
    if (!good0) status = weakestStatus([s0.status]);
    if (!good1) status = weakestStatus([status, s1!.status]);
    if (assumption) status = weakestStatus([status, 'defaulted']);
  }
  // The inputs' conditions are named, not copied (each input states its own); a weak input shows in the status.
  let condition: string | undefined;
  if (s0.condition) condition = `the condition of ${r.rules[0]!.member}`;
  if (s1?.condition && r.rules[1]!.member !== r.rules[0]!.member) {
    const c1 = `the condition of ${r.rules[1]!.member}`;
    condition = condition ? `${condition}; ${c1}` : c1;
  }
  const out: Sourced = { value: Math.max(0, value), status, unit, inputs: inputs as string[] };
  if (condition) out.condition = condition;
  if (assumption) out.note = `Assumed ${assumption}.`;
  return out;
}

function deriveAll(env: Record<string, Sourced>, lot: EnvelopeLot): Record<DerivedKey, Sourced> {
  return {
    maxFloorAreaSqft: derive(env, RECIPES.maxFloorAreaSqft, lot.areaSqft),
    maxDwellingUnits: derive(env, RECIPES.maxDwellingUnits, lot.areaSqft),
    maxDwellingUnitsByDensity: derive(env, RECIPES.maxDwellingUnitsByDensity, lot.areaSqft),
    maxFootprintSqft: derive(env, RECIPES.maxFootprintSqft, lot.areaSqft),
    buildableWidthFt: buildableWidth(env, lot),
    buildableDepthFt: derive(env, RECIPES.buildableDepthFt, lot.depthFt),
  };
}

/** Frontage below this share of the lot's mean width (area / depth): the street edge is a flag lot's stem, not its width. */
const FLAG_LOT_FRONTAGE_SHARE = 0.5;

/**
 * The buildable width: the frontage less the side yards, unless the lot is much wider behind the street
 * than at it (a flag lot's stem, an irregular lot): then the frontage says nothing of where a building
 * goes, and the lot's mean width (area / depth) stands in for it, as a stated assumption
 * (docs/lot-geometry.md, "Buildable width").
 */
function buildableWidth(env: Record<string, Sourced>, lot: EnvelopeLot): Sourced {
  let recipe: Recipe =
    lot.cornerLot === true ? RECIPES.buildableWidthFtCorner : env['minSideYardSumFt'] ? RECIPES.buildableWidthFtInteriorSum : RECIPES.buildableWidthFtInterior;
  const assumptions = lot.cornerLot === null ? [INTERIOR_ASSUMED] : [];
  let width = lot.frontageFt;
  if (width !== null && lot.areaSqft !== null && lot.depthFt !== null && lot.depthFt > 0) {
    const meanWidth = lot.areaSqft / lot.depthFt;
    if (width < FLAG_LOT_FRONTAGE_SHARE * meanWidth) {
      assumptions.push(
        `the lot's mean width behind the street (area / depth = ${round(meanWidth)} ft) as its width, since its street frontage (${round(width)} ft) is much narrower than the lot (a flag or irregular lot)`,
      );
      width = meanWidth;
      recipe = { ...recipe, inputs: [...recipe.inputs.filter((i) => i !== 'lot.frontageFt'), 'lot.areaSqft', 'lot.depthFt'] };
    }
  }
  return derive(env, recipe, width, assumptions.length ? assumptions.join('; and ') : undefined);
}

function unknownUses(status: ValueStatus, note: string): PermittedUse[] {
  return [{ use: 'all uses', permission: 'unknown', status, note }];
}

export function buildEnvelope(input: EnvelopeInput): EnvelopeResult {
  const { rules, lot } = input;
  const notes: string[] = [];
  const byShare = [...input.zones].sort((a, b) => b.share - a.share);
  const primary = input.primaryZone ?? byShare[0]?.code ?? null;
  const distinct = new Set(input.zones.map((z) => z.code));
  if (distinct.size > 1 && primary !== null) {
    const shares = byShare.map((z) => `${z.code} ${Math.round(z.share * 100)}%`).join(', ');
    notes.push(
      `Split lot (${shares}): the envelope uses the primary (largest share) district ${primary}; the other districts' rules also apply to their parts of the lot.`,
    );
  }

  const envelope: Record<string, Sourced> = {};
  if (primary === null) {
    notes.push('No zoning district was found for this lot, so no rule could be applied.');
    for (const m of ENVELOPE_MEMBERS) envelope[m.name] = { value: null, status: 'missing', unit: m.unit, note: 'No zoning district for this lot.' };
    return { envelope, permittedUses: unknownUses('missing', 'No zoning district for this lot.'), notes };
  }

  const found = findDistrict(rules, primary);
  if (!found) {
    const note = `District ${primary} is not in the ${rules.slug} rules file: not extracted; read ${bylawRef(rules)}.`;
    notes.push(note);
    for (const m of ENVELOPE_MEMBERS) envelope[m.name] = { value: null, status: 'not_extracted', unit: m.unit, note };
    return { envelope, permittedUses: unknownUses('not_extracted', note), notes };
  }
  const { code, district } = found;
  if (code !== primary) notes.push(`Zoning-layer code ${primary} is read as district ${code} of the rules.`);
  const districtNote = `District ${code} (${district.name}) under ${rules.bylaw.name}, ${rules.bylaw.date}.`;
  if (district.governedBy) notes.push(`District ${code} is governed by ${district.governedBy}.`);
  if (district.note) notes.push(district.note);
  notes.push(...rules.notes);

  const vars = lotVars(lot, input.residentialType, input.building);
  const conditions = input.building?.conditions;
  const ctx: TierContext = conditions ? { said: statedWords(conditions.stated), open: conditions.open ?? [] } : NO_CONDITIONS;
  for (const key of STANDARD_KEYS) {
    envelope[key] = resolveStandard(rules, code, district, key, vars, input.building?.buildingType, ctx);
    // A table that states the sum of the side setbacks (Somerville): it bounds the buildable width and footprint too.
    if (key === 'minSideYardFt' && district.buildingTypes) {
      const sum = sideYardSum(district, input.building?.buildingType, vars, ctx);
      if (sum) envelope['minSideYardSumFt'] = sum;
    }
  }
  Object.assign(envelope, deriveAll(envelope, lot));

  // One sentence for all the overlays (what they may do is said once), each named with its section and note.
  const overlays: string[] = [];
  for (const o of input.overlays) {
    // Layers combine overlays in one code ("PUD-KS/PUD-7", "Parkway / AOD-5"): describe each part.
    const parts = o.code
      .split('/')
      .map((p) => p.trim())
      .filter(Boolean);
    for (const part of parts.length > 1 ? parts : [o.code]) {
      const known = rules.overlays[part];
      const name = known?.name ?? (parts.length > 1 ? part : (o.name ?? part));
      const gov = known?.governedBy ? `, ${known.governedBy}` : '';
      const named = `${name}${gov}${known?.note ? ` (${known.note.replace(/\.$/, '')})` : ''}`;
      if (!overlays.includes(named)) overlays.push(named);
    }
  }
  if (overlays.length === 1) notes.push(`Overlay ${overlays[0]} may modify these values; its rules are not applied here.`);
  else if (overlays.length > 1) notes.push(`Overlays ${overlays.join('; ')} may modify these values; their rules are not applied here.`);
  if (lot.country === 'CA') notes.push('Lengths and areas are in feet and square feet; the bylaw states metric values.');

  const permittedUses: PermittedUse[] =
    district.uses.length > 0
      ? district.uses.map((u) => ({ ...u }))
      : unknownUses(
          district.otherStandards?.status === 'site_specific_schedule' ? 'site_specific_schedule' : 'not_extracted',
          `Uses not extracted for district ${code}; read ${whereToRead(rules, district)}.`,
        );
  return { envelope, permittedUses, notes, districtNote };
}

/**
 * Violations of the envelope's honesty rules (empty when none): an unknown status (not_extracted,
 * site_specific_schedule, conditional_unresolved, missing) never carries a value (so never zero)
 * and never says "no limit"; a cited or derived value always has one; no_limit_in_bylaw is null.
 */
export function envelopeInvariantViolations(envelope: Record<string, Sourced>): string[] {
  const out: string[] = [];
  for (const [name, s] of Object.entries(envelope)) {
    if (UNKNOWN_VALUE_STATUSES.includes(s.status)) {
      if (s.value !== null) out.push(`${name}: ${s.status} carries value ${String(s.value)}`);
      if (s.note && /^no limit/i.test(s.note)) out.push(`${name}: ${s.status} is described as no limit`);
    }
    if (s.status === 'no_limit_in_bylaw' && s.value !== null) out.push(`${name}: no_limit_in_bylaw carries value ${String(s.value)}`);
    if ((s.status === 'cited' || s.status === 'cited_conditional' || s.status === 'derived_from_cited') && (s.value === null || !Number.isFinite(s.value)))
      out.push(`${name}: ${s.status} without a finite value`);
    if ((s.status === 'cited' || s.status === 'cited_conditional') && !s.citation) out.push(`${name}: ${s.status} without a citation`);
    if (s.status === 'cited_conditional' && !s.condition) out.push(`${name}: cited_conditional without its condition`);
    if (s.status === 'derived_from_cited' && !s.inputs?.length) out.push(`${name}: derived_from_cited without inputs`);
  }
  return out;
}

export function assertEnvelopeInvariants(envelope: Record<string, Sourced>): void {
  const v = envelopeInvariantViolations(envelope);
  if (v.length) throw new Error(`Envelope invariants violated:\n  ${v.join('\n  ')}`);
}
