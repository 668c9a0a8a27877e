// US states / territories and Canadian provinces / territories: codes, names, and which postcodes
// can belong to them (USPS ZIP3 prefixes; Canada Post forward-sortation first letters).

export type Country = 'US' | 'CA';

interface RegionInfo {
  code: string;
  country: Country;
  names: readonly string[];
}

const REGIONS: readonly RegionInfo[] = [
  { code: 'AL', country: 'US', names: ['ALABAMA'] },
  { code: 'AK', country: 'US', names: ['ALASKA'] },
  { code: 'AZ', country: 'US', names: ['ARIZONA'] },
  { code: 'AR', country: 'US', names: ['ARKANSAS'] },
  { code: 'CA', country: 'US', names: ['CALIFORNIA'] },
  { code: 'CO', country: 'US', names: ['COLORADO'] },
  { code: 'CT', country: 'US', names: ['CONNECTICUT'] },
  { code: 'DE', country: 'US', names: ['DELAWARE'] },
  { code: 'DC', country: 'US', names: ['DISTRICT OF COLUMBIA'] },
  { code: 'FL', country: 'US', names: ['FLORIDA'] },
  { code: 'GA', country: 'US', names: ['GEORGIA'] },
  { code: 'HI', country: 'US', names: ['HAWAII'] },
  { code: 'ID', country: 'US', names: ['IDAHO'] },
  { code: 'IL', country: 'US', names: ['ILLINOIS'] },
  { code: 'IN', country: 'US', names: ['INDIANA'] },
  { code: 'IA', country: 'US', names: ['IOWA'] },
  { code: 'KS', country: 'US', names: ['KANSAS'] },
  { code: 'KY', country: 'US', names: ['KENTUCKY'] },
  { code: 'LA', country: 'US', names: ['LOUISIANA'] },
  { code: 'ME', country: 'US', names: ['MAINE'] },
  { code: 'MD', country: 'US', names: ['MARYLAND'] },
  { code: 'MA', country: 'US', names: ['MASSACHUSETTS', 'MASS'] },
  { code: 'MI', country: 'US', names: ['MICHIGAN'] },
  { code: 'MN', country: 'US', names: ['MINNESOTA'] },
  { code: 'MS', country: 'US', names: ['MISSISSIPPI'] },
  { code: 'MO', country: 'US', names: ['MISSOURI'] },
  { code: 'MT', country: 'US', names: ['MONTANA'] },
  { code: 'NE', country: 'US', names: ['NEBRASKA'] },
  { code: 'NV', country: 'US', names: ['NEVADA'] },
  { code: 'NH', country: 'US', names: ['NEW HAMPSHIRE'] },
  { code: 'NJ', country: 'US', names: ['NEW JERSEY'] },
  { code: 'NM', country: 'US', names: ['NEW MEXICO'] },
  { code: 'NY', country: 'US', names: ['NEW YORK'] },
  { code: 'NC', country: 'US', names: ['NORTH CAROLINA'] },
  { code: 'ND', country: 'US', names: ['NORTH DAKOTA'] },
  { code: 'OH', country: 'US', names: ['OHIO'] },
  { code: 'OK', country: 'US', names: ['OKLAHOMA'] },
  { code: 'OR', country: 'US', names: ['OREGON'] },
  { code: 'PA', country: 'US', names: ['PENNSYLVANIA'] },
  { code: 'RI', country: 'US', names: ['RHODE ISLAND'] },
  { code: 'SC', country: 'US', names: ['SOUTH CAROLINA'] },
  { code: 'SD', country: 'US', names: ['SOUTH DAKOTA'] },
  { code: 'TN', country: 'US', names: ['TENNESSEE'] },
  { code: 'TX', country: 'US', names: ['TEXAS'] },
  { code: 'UT', country: 'US', names: ['UTAH'] },
  { code: 'VT', country: 'US', names: ['VERMONT'] },
  { code: 'VA', country: 'US', names: ['VIRGINIA'] },
  { code: 'WA', country: 'US', names: ['WASHINGTON'] },
  { code: 'WV', country: 'US', names: ['WEST VIRGINIA'] },
  { code: 'WI', country: 'US', names: ['WISCONSIN'] },
  { code: 'WY', country: 'US', names: ['WYOMING'] },
  { code: 'PR', country: 'US', names: ['PUERTO RICO'] },
  { code: 'VI', country: 'US', names: ['VIRGIN ISLANDS', 'US VIRGIN ISLANDS'] },
  { code: 'GU', country: 'US', names: ['GUAM'] },
  { code: 'AS', country: 'US', names: ['AMERICAN SAMOA'] },
  { code: 'MP', country: 'US', names: ['NORTHERN MARIANA ISLANDS'] },
  { code: 'AB', country: 'CA', names: ['ALBERTA'] },
  { code: 'BC', country: 'CA', names: ['BRITISH COLUMBIA', 'COLOMBIE BRITANNIQUE'] },
  { code: 'MB', country: 'CA', names: ['MANITOBA'] },
  { code: 'NB', country: 'CA', names: ['NEW BRUNSWICK', 'NOUVEAU BRUNSWICK'] },
  { code: 'NL', country: 'CA', names: ['NEWFOUNDLAND AND LABRADOR', 'NEWFOUNDLAND', 'TERRE NEUVE ET LABRADOR'] },
  { code: 'NS', country: 'CA', names: ['NOVA SCOTIA', 'NOUVELLE ECOSSE'] },
  { code: 'NT', country: 'CA', names: ['NORTHWEST TERRITORIES', 'TERRITOIRES DU NORD OUEST'] },
  { code: 'NU', country: 'CA', names: ['NUNAVUT'] },
  { code: 'ON', country: 'CA', names: ['ONTARIO'] },
  { code: 'PE', country: 'CA', names: ['PRINCE EDWARD ISLAND', 'ILE DU PRINCE EDOUARD'] },
  { code: 'QC', country: 'CA', names: ['QUEBEC'] },
  { code: 'SK', country: 'CA', names: ['SASKATCHEWAN'] },
  { code: 'YT', country: 'CA', names: ['YUKON', 'YUKON TERRITORY'] },
];

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
