// A place without a zoning map (manifest districtSource "stated": Somerville) never guesses a lot's
// district: the caller states it (and the building type, where the district zones by type), every
// answer says where it came from, and an answer without one gives the lot and names the choices.
// Every surface passes the caller's words here through getFeasibilitySnapshot (docs/snapshot.md).
import { SitelineError } from '../core/errors.ts';
import { findDistrict, type PlaceRules, type DistrictRules } from '../core/rules-schema.ts';
import type { DistrictChoice, DistrictOption, DistrictSource, Zones } from '../core/snapshot-types.ts';
import type { PlaceRecord } from '../places/catalogue.ts';

/** What a caller may state with an address. */
export interface StatedDistrict {
  district?: string | null | undefined;
  buildingType?: string | null | undefined;
}

/** Longest district code or building type name a caller may state (a longer text is refused). */
export const STATED_MAX_LENGTH = 80;

export type StatedOutcome =
  | { kind: 'needs'; choice: DistrictChoice; source: DistrictSource }
  | { kind: 'stated'; code: string; district: DistrictRules; buildingType: string | null; zones: Zones; choice?: DistrictChoice; warning: string };

function optionOf(code: string, d: DistrictRules): DistrictOption {
  const types = d.buildingTypes ? Object.keys(d.buildingTypes) : [];
  return types.length ? { code, name: d.name, buildingTypes: types } : { code, name: d.name };
}

/** The place's districts with their building types, in the rules file's order. */
export function districtOptions(rules: PlaceRules): DistrictOption[] {
  return Object.entries(rules.districts).map(([code, d]) => optionOf(code, d));
}

/** A stated text, trimmed; empty means not stated. */
function clean(v: string | null | undefined, what: string): string | null {
  if (v === undefined || v === null) return null;
  const t = v.trim().replace(/\s+/g, ' ');
  if (t.length > STATED_MAX_LENGTH) throw new SitelineError('bad_input', `The ${what} is longer than ${STATED_MAX_LENGTH} characters.`);
  return t === '' ? null : t;
}

/** The one sentence an answer says the source of its district with. */
export function statedSentence(code: string, name: string, buildingType: string | null, statement: string): string {
  return `District ${code} (${name})${buildingType ? `, building type ${buildingType},` : ''} ${statement}.`;
}

/**
 * The caller's district in a place without a zoning map: the choices when none is stated, else the
 * district as the rules file names it. An unknown district or building type is bad input naming the
 * place's own (nothing is guessed).
 */
export function resolveStatedDistrict(place: PlaceRecord, rules: PlaceRules, stated: StatedDistrict | undefined): StatedOutcome {
  const options = districtOptions(rules);
  const note = place.districtSourceNote ?? 'stated by the caller';
  const districtText = clean(stated?.district, 'district');
  const typeText = clean(stated?.buildingType, 'building type');
  if (!districtText) {
    if (typeText) throw new SitelineError('bad_input', `A building type (${typeText}) was stated without a district: state the district too (${options.map((o) => o.code).join(', ')}).`, { districts: options });
    return {
      kind: 'needs',
      source: { kind: 'stated_by_caller', statement: note, buildingType: null },
      choice: {
        needs: 'district',
        message: `${place.name} has no zoning map siteline can read, so a lot's district is never guessed: state the district (one of ${options.map((o) => o.code).join(', ')}) as shown on the City's official zoning map, and the building type where the district zones by building type.`,
        districts: options,
      },
    };
  }
  const found = findDistrict(rules, districtText) ?? findDistrict(rules, districtText.toUpperCase());
  if (!found) {
    throw new SitelineError('bad_input', `"${districtText}" is not a district of ${place.name}'s zoning rules. Its districts: ${options.map((o) => `${o.code} (${o.name})`).join(', ')}.`, { districts: options });
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
        { districts: [optionOf(code, district)] },
      );
    }
  }
  const zones: Zones = {
    primary: code,
    districts: [{ code, name: district.name, share: 1 }],
    splitLot: false,
    overlays: [],
    districtSource: { kind: 'stated_by_caller', statement: note, buildingType },
  };
  const warning = statedSentence(code, district.name, buildingType, note);
  if (types.length && !buildingType) {
    return {
      kind: 'stated',
      code,
      district,
      buildingType,
      zones,
      warning,
      choice: {
        needs: 'buildingType',
        message: `District ${code} zones by building type: its dimensional standards are each building type's own. State one (${types.join(', ')}) to resolve them; until then they are conditional_unresolved.`,
        districts: [optionOf(code, district)],
      },
    };
  }
  return { kind: 'stated', code, district, buildingType, zones, warning };
}
