// A place without a zoning map (manifest districtSource "stated": Somerville) never guesses a lot's
// district: the caller states it (and the building type, where the district zones by type), every
// answer says where it came from, and an answer without one gives the lot and names the choices.
// So too the conditions a type's table states values under (driveway access, alley, ...: see
// src/rules/tier-conditions.ts): stated, they resolve those values; unstated, the values stay
// conditional_unresolved and the choice block lists them with their values.
// Every surface passes the caller's words here through getFeasibilitySnapshot (docs/snapshot.md).
import { SitelineError } from '../core/errors.ts';
import { CONDITION_SOURCE, type StatedCondition } from '../core/envelope.ts';
import { findDistrict, type PlaceRules, type DistrictRules } from '../core/rules-schema.ts';
import type { ConditionOption, DistrictChoice, DistrictOption, DistrictSource, Zones } from '../core/snapshot-types.ts';
import type { PlaceRecord } from '../places/catalogue.ts';
import {
  conditionNames,
  conditionsOfTable,
  districtConditions,
  envelopeConditions,
  readStatedConditions,
  type TableCondition,
} from '../rules/tier-conditions.ts';

/** What a caller may state with an address. */
export interface StatedDistrict {
  district?: string | null | undefined;
  buildingType?: string | null | undefined;
  /** Conditions of the type's table, each "Name=Value" or the value alone ("Driveway access=Front Driveway Access"). */
  conditions?: readonly string[] | null | undefined;
  /** The lot the caller picks by its id, over the address's own match (src/snapshot/picked-lot.ts); any place. */
  lotId?: string | null | undefined;
}

/** Longest district code or building type name a caller may state (a longer text is refused). */
export const STATED_MAX_LENGTH = 80;

export type StatedOutcome =
  | { kind: 'needs'; choice: DistrictChoice; source: DistrictSource }
  | {
      kind: 'stated';
      code: string;
      district: DistrictRules;
      buildingType: string | null;
      /** The conditions stated, checked against the table, and what the envelope resolves them with. */
      conditions: StatedCondition[];
      envelopeConditions: ReturnType<typeof envelopeConditions>;
      zones: Zones;
      choice?: DistrictChoice;
      warning: string;
    };

function optionOf(rules: PlaceRules, code: string, d: DistrictRules, conditions: ConditionOption[] = districtConditions(rules, d)): DistrictOption {
  const types = d.buildingTypes ? Object.keys(d.buildingTypes) : [];
  return { code, name: d.name, ...(types.length ? { buildingTypes: types } : {}), ...(conditions.length ? { conditions } : {}) };
}

/** The place's districts with their building types and the conditions their tables state values under, in the rules file's order. */
export function districtOptions(rules: PlaceRules): DistrictOption[] {
  return Object.entries(rules.districts).map(([code, d]) => optionOf(rules, code, d));
}

/** A stated text, trimmed; empty means not stated. */
function clean(v: string | null | undefined, what: string, max = STATED_MAX_LENGTH): string | null {
  if (v === undefined || v === null) return null;
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(v)) throw new SitelineError('bad_input', `The ${what} holds control characters; state it as plain words.`);
  const t = v.trim().replace(/\s+/g, ' ');
  if (t.length > max) throw new SitelineError('bad_input', `The ${what} is longer than ${max} characters.`);
  return t === '' ? null : t;
}

/** The one sentence an answer says the source of its district with (and of the conditions stated, one more). */
export function statedSentence(
  code: string,
  name: string,
  buildingType: string | null,
  statement: string,
  conditions: readonly { name: string; value: string }[] = [],
): string {
  const said = `District ${code} (${name})${buildingType ? `, building type ${buildingType},` : ''} ${statement}.`;
  return conditions.length ? `${said} ${conditionsSentence(conditions)}` : said;
}

/** "Driveway access: Front Driveway Access, stated by the caller." */
export function conditionsSentence(conditions: readonly { name: string; value: string }[]): string {
  return `${conditions.map((c) => `${c.name}: ${c.value}`).join('; ')}, ${CONDITION_SOURCE}.`;
}

/** A table's conditions as the choice block lists them (for one building type). */
function tableOptions(table: readonly TableCondition[], buildingType: string | null): ConditionOption[] {
  return table.map((c) => ({
    key: c.key,
    name: c.name,
    values: [...c.values],
    standards: [...c.standards],
    ...(buildingType ? { buildingTypes: [buildingType] } : {}),
  }));
}

/** Each stated text trimmed; too long a text is refused. */
function cleanList(v: readonly string[] | null | undefined): string[] {
  return (v ?? []).map((t) => clean(t, 'condition', 2 * STATED_MAX_LENGTH)).filter((t): t is string => t !== null);
}

/**
 * The caller's district in a place without a zoning map: the choices when none is stated, else the
 * district as the rules file names it. An unknown district or building type is bad input naming the
 * place's own (nothing is guessed).
 */
// Long because: each stated field checked against the rules in the order the answer reports them, each refusal naming the place's own options.
export function resolveStatedDistrict(place: PlaceRecord, rules: PlaceRules, stated: StatedDistrict | undefined): StatedOutcome {
  const options = districtOptions(rules);
  const note = place.districtSourceNote ?? 'stated by the caller';
  const districtText = clean(stated?.district, 'district');
  const typeText = clean(stated?.buildingType, 'building type');
  const conditionTexts = cleanList(stated?.conditions);
  if (!districtText) {
    if (typeText)
      throw new SitelineError(
        'bad_input',
        `A building type (${typeText}) was stated without a district: state the district too (${options.map((o) => o.code).join(', ')}).`,
        { districts: options },
      );
    if (conditionTexts.length)
      throw new SitelineError(
        'bad_input',
        `Conditions (${conditionTexts.join('; ')}) were stated without a district: state the district (${options.map((o) => o.code).join(', ')}) and building type too.`,
        { districts: options },
      );
    return {
      kind: 'needs',
      source: { kind: 'stated_by_caller', statement: note, buildingType: null },
      choice: {
        needs: 'district',
        message: `${place.name} has no zoning map siteline can read, so a lot's district is never guessed: state the district (one of ${options.map((o) => o.code).join(', ')}) as shown on the City's official zoning map, the building type where the district zones by building type, and, where its table states values under conditions such as driveway access, those conditions.`,
        districts: options,
      },
    };
  }
  const found = findDistrict(rules, districtText) ?? findDistrict(rules, districtText.toUpperCase());
  if (!found) {
    throw new SitelineError(
      'bad_input',
      `"${districtText}" is not a district of ${place.name}'s zoning rules. Its districts: ${options.map((o) => `${o.code} (${o.name})`).join(', ')}.`,
      { districts: options },
    );
  }
  const { code, district } = found;
  const types = district.buildingTypes ? Object.keys(district.buildingTypes) : [];
  let buildingType: string | null = null;
  if (typeText) {
    buildingType = types.find((t) => t.toLowerCase() === typeText.toLowerCase()) ?? null;
    if (!buildingType) {
      throw new SitelineError(
        'bad_input',
        types.length
          ? `"${typeText}" is not a building type of district ${code}. Its building types: ${types.join(', ')}.`
          : `District ${code} does not zone by building type; leave the building type out.`,
        { districts: [optionOf(rules, code, district)] },
      );
    }
  }
  if (conditionTexts.length && types.length && !buildingType) {
    throw new SitelineError(
      'bad_input',
      `Conditions (${conditionTexts.join('; ')}) were stated without a building type: district ${code}'s conditions belong to each building type's own table, so state the building type (${types.join(', ')}) too.`,
      { districts: [optionOf(rules, code, district)] },
    );
  }
  const table = conditionsOfTable(rules, district, buildingType);
  const tableName = buildingType ? `the ${buildingType} table of district ${code}` : `district ${code}'s table`;
  let conditions: StatedCondition[];
  try {
    conditions = readStatedConditions(conditionTexts, table, tableName, conditionNames(rules));
  } catch (err) {
    if (err instanceof SitelineError)
      throw new SitelineError('bad_input', err.message, { districts: [optionOf(rules, code, district, tableOptions(table, buildingType))] });
    throw err;
  }
  const said = conditions.map((c) => ({ key: c.key, name: c.name, value: c.value }));
  const zones: Zones = {
    primary: code,
    districts: [{ code, name: district.name, share: 1 }],
    splitLot: false,
    overlays: [],
    districtSource: { kind: 'stated_by_caller', statement: note, buildingType, ...(said.length ? { conditions: said } : {}) },
  };
  const warning = statedSentence(code, district.name, buildingType, note, said);
  const base = { kind: 'stated' as const, code, district, buildingType, conditions, envelopeConditions: envelopeConditions(table, conditions), zones, warning };
  if (types.length && !buildingType) {
    return {
      ...base,
      choice: {
        needs: 'buildingType',
        message: `District ${code} zones by building type: its dimensional standards are each building type's own. State one (${types.join(', ')}) to resolve them; until then they are conditional_unresolved.`,
        districts: [optionOf(rules, code, district)],
      },
    };
  }
  const open = table.filter((t) => !conditions.some((c) => c.key === t.key));
  if (open.length) {
    const what = buildingType ? `The ${buildingType} table` : `District ${code}'s table`;
    return {
      ...base,
      choice: {
        needs: 'conditions',
        message: `${what} states ${[...new Set(open.flatMap((o) => o.standards))].join(', ')} by ${open.map((o) => o.name.toLowerCase()).join(' and ')}, which siteline cannot read from the data it holds: state ${open.map((o) => `${o.name.toLowerCase()} (one of ${o.values.join(', ')})`).join(' and ')} to resolve them; until then they are conditional_unresolved.`,
        districts: [optionOf(rules, code, district, tableOptions(open, buildingType))],
      },
    };
  }
  return base;
}
