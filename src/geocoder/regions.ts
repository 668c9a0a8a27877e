// US states / territories and Canadian provinces / territories: codes, names, and which postcodes
// can belong to them (USPS ZIP3 prefixes; Canada Post forward-sortation first letters).

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
const REGIONS: readonly RegionInfo[] = REGION_TABLE.map((r) => ({ code: r.code, country: r.country, names: [foldName(r.name), ...(EXTRA_NAMES[r.code] ?? [])] }));

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

// USPS three-digit ZIP prefixes by state (ranges inclusive). Military (AA/AE/AP) prefixes are not states here.
const ZIP3: readonly (readonly [number, number, string])[] = [
  [5, 5, 'NY'], [6, 7, 'PR'], [8, 8, 'VI'], [9, 9, 'PR'],
  [10, 27, 'MA'], [55, 55, 'MA'], [28, 29, 'RI'], [30, 38, 'NH'], [39, 49, 'ME'], [50, 54, 'VT'], [56, 59, 'VT'],
  [60, 69, 'CT'], [70, 89, 'NJ'], [100, 149, 'NY'], [150, 196, 'PA'], [197, 199, 'DE'],
  [200, 200, 'DC'], [202, 205, 'DC'], [569, 569, 'DC'], [201, 201, 'VA'], [206, 219, 'MD'], [220, 246, 'VA'],
  [247, 268, 'WV'], [270, 289, 'NC'], [290, 299, 'SC'], [300, 319, 'GA'], [398, 399, 'GA'], [320, 339, 'FL'],
  [341, 342, 'FL'], [344, 344, 'FL'], [346, 347, 'FL'], [349, 349, 'FL'], [350, 369, 'AL'], [370, 385, 'TN'],
  [386, 397, 'MS'], [400, 427, 'KY'], [430, 459, 'OH'], [460, 479, 'IN'], [480, 499, 'MI'], [500, 528, 'IA'],
  [530, 549, 'WI'], [550, 567, 'MN'], [570, 577, 'SD'], [580, 588, 'ND'], [590, 599, 'MT'], [600, 629, 'IL'],
  [630, 658, 'MO'], [660, 679, 'KS'], [680, 693, 'NE'], [700, 715, 'LA'], [716, 729, 'AR'], [730, 749, 'OK'],
  [733, 733, 'TX'], [750, 799, 'TX'], [885, 885, 'TX'], [800, 816, 'CO'], [820, 831, 'WY'], [832, 838, 'ID'],
  [840, 847, 'UT'], [850, 865, 'AZ'], [870, 884, 'NM'], [889, 898, 'NV'], [900, 961, 'CA'], [967, 968, 'HI'],
  [969, 969, 'GU'], [970, 979, 'OR'], [980, 994, 'WA'], [995, 999, 'AK'],
];

/** States a ZIP code's prefix can belong to (usually one; a few prefixes are shared). */
export function statesForZip(zip5: string): string[] {
  const p = Number.parseInt(zip5.slice(0, 3), 10);
  return ZIP3.filter(([lo, hi]) => p >= lo && p <= hi).map(([, , s]) => s);
}

/** Canada Post: the first letter of a postal code names the province or territory. */
const POSTAL_FIRST_LETTER: ReadonlyMap<string, readonly string[]> = new Map([
  ['A', ['NL']], ['B', ['NS']], ['C', ['PE']], ['E', ['NB']], ['G', ['QC']], ['H', ['QC']], ['J', ['QC']],
  ['K', ['ON']], ['L', ['ON']], ['M', ['ON']], ['N', ['ON']], ['P', ['ON']], ['R', ['MB']], ['S', ['SK']],
  ['T', ['AB']], ['V', ['BC']], ['X', ['NT', 'NU']], ['Y', ['YT']],
]);

export function provincesForPostalCode(code: string): readonly string[] {
  return POSTAL_FIRST_LETTER.get(code.charAt(0)) ?? [];
}
