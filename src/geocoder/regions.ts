// US states / territories and Canadian provinces / territories as the address parser reads them: codes,
// names and the informal ones. Which postcodes can belong to a region is src/places/regions.ts's.

import { REGIONS as REGION_TABLE, foldName } from '../places/regions.ts';

export type Country = 'US' | 'CA';

interface RegionInfo {
  code: string;
  country: Country;
  names: readonly string[];
}

/** Names the parser also reads beyond each region's own (French names, informal forms), by code. */
const EXTRA_NAMES: Readonly<Record<string, readonly string[]>> = {
  MA: ['MASS'],
  VI: ['VIRGIN ISLANDS'],
  BC: ['COLOMBIE BRITANNIQUE'],
  NB: ['NOUVEAU BRUNSWICK'],
  NL: ['NEWFOUNDLAND', 'TERRE NEUVE ET LABRADOR'],
  NS: ['NOUVELLE ECOSSE'],
  NT: ['TERRITOIRES DU NORD OUEST'],
  PE: ['ILE DU PRINCE EDOUARD'],
  YT: ['YUKON TERRITORY'],
};

// The states, provinces and territories themselves come from the one table in src/places/regions.ts.
const REGIONS: readonly RegionInfo[] = REGION_TABLE.map((r) => ({
  code: r.code,
  country: r.country,
  names: [foldName(r.name), ...(EXTRA_NAMES[r.code] ?? [])],
}));

/** Older or informal codes still seen in the wild. */
const CODE_ALIASES: ReadonlyMap<string, string> = new Map([
  ['PQ', 'QC'],
  ['NF', 'NL'],
  ['LB', 'NL'],
  ['YK', 'YT'],
]);

const BY_CODE = new Map(REGIONS.map((r) => [r.code, r]));
/** Names folded to letters only ("COLOMBIEBRITANNIQUE"), so hyphens and spaces do not matter. */
const BY_FOLDED_NAME = new Map(REGIONS.flatMap((r) => r.names.map((n) => [n.replace(/[^A-Z]/g, ''), r] as const)));

export interface Region {
  code: string;
  country: Country;
}

export function regionByCode(code: string): Region | null {
  const c = CODE_ALIASES.get(code) ?? code;
  const r = BY_CODE.get(c);
  return r ? { code: r.code, country: r.country } : null;
}

/** Full-name lookup; `folded` is upper-case letters only. */
export function regionByFoldedName(folded: string): Region | null {
  const r = BY_FOLDED_NAME.get(folded);
  return r ? { code: r.code, country: r.country } : null;
}

/** Longest region name, in words: bounds how far back the parser looks. */
export const MAX_REGION_NAME_WORDS = Math.max(...REGIONS.flatMap((r) => r.names.map((n) => n.split(' ').length)));
