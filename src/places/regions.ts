// US states, DC and territories, and Canadian provinces and territories: ISO 3166-2 subdivision codes
// (without the country prefix) and names. Written here rather than taken from a package: it is short,
// it changes about once a generation, and place resolution must not depend on a data file's quirks.
// Which postcodes can belong to a region (USPS ZIP3 prefixes; Canada Post forward-sortation first
// letters) is here too: place resolution and the address parser both ask.

export interface Region {
  code: string;
  name: string;
  country: 'US' | 'CA';
}

const US: [string, string][] = [
  ['AL', 'Alabama'],
  ['AK', 'Alaska'],
  ['AZ', 'Arizona'],
  ['AR', 'Arkansas'],
  ['CA', 'California'],
  ['CO', 'Colorado'],
  ['CT', 'Connecticut'],
  ['DE', 'Delaware'],
  ['DC', 'District of Columbia'],
  ['FL', 'Florida'],
  ['GA', 'Georgia'],
  ['HI', 'Hawaii'],
  ['ID', 'Idaho'],
  ['IL', 'Illinois'],
  ['IN', 'Indiana'],
  ['IA', 'Iowa'],
  ['KS', 'Kansas'],
  ['KY', 'Kentucky'],
  ['LA', 'Louisiana'],
  ['ME', 'Maine'],
  ['MD', 'Maryland'],
  ['MA', 'Massachusetts'],
  ['MI', 'Michigan'],
  ['MN', 'Minnesota'],
  ['MS', 'Mississippi'],
  ['MO', 'Missouri'],
  ['MT', 'Montana'],
  ['NE', 'Nebraska'],
  ['NV', 'Nevada'],
  ['NH', 'New Hampshire'],
  ['NJ', 'New Jersey'],
  ['NM', 'New Mexico'],
  ['NY', 'New York'],
  ['NC', 'North Carolina'],
  ['ND', 'North Dakota'],
  ['OH', 'Ohio'],
  ['OK', 'Oklahoma'],
  ['OR', 'Oregon'],
  ['PA', 'Pennsylvania'],
  ['RI', 'Rhode Island'],
  ['SC', 'South Carolina'],
  ['SD', 'South Dakota'],
  ['TN', 'Tennessee'],
  ['TX', 'Texas'],
  ['UT', 'Utah'],
  ['VT', 'Vermont'],
  ['VA', 'Virginia'],
  ['WA', 'Washington'],
  ['WV', 'West Virginia'],
  ['WI', 'Wisconsin'],
  ['WY', 'Wyoming'],
  ['PR', 'Puerto Rico'],
  ['GU', 'Guam'],
  ['VI', 'U.S. Virgin Islands'],
  ['AS', 'American Samoa'],
  ['MP', 'Northern Mariana Islands'],
];

const CA: [string, string][] = [
  ['AB', 'Alberta'],
  ['BC', 'British Columbia'],
  ['MB', 'Manitoba'],
  ['NB', 'New Brunswick'],
  ['NL', 'Newfoundland and Labrador'],
  ['NS', 'Nova Scotia'],
  ['NT', 'Northwest Territories'],
  ['NU', 'Nunavut'],
  ['ON', 'Ontario'],
  ['PE', 'Prince Edward Island'],
  ['QC', 'Quebec'],
  ['SK', 'Saskatchewan'],
  ['YT', 'Yukon'],
];

/** Other spellings people and postal systems use. */
const REGION_ALIASES: [string, 'US' | 'CA', string][] = [
  ['MASS', 'US', 'MA'],
  ['CALIF', 'US', 'CA'],
  ['WASHINGTON DC', 'US', 'DC'],
  ['DC', 'US', 'DC'],
  ['D C', 'US', 'DC'],
  ['PQ', 'CA', 'QC'],
  ['QUE', 'CA', 'QC'],
  ['QUEBEC', 'CA', 'QC'],
  ['NEWFOUNDLAND', 'CA', 'NL'],
  ['NF', 'CA', 'NL'],
  ['LABRADOR', 'CA', 'NL'],
  ['YUKON TERRITORY', 'CA', 'YT'],
  ['PEI', 'CA', 'PE'],
  ['NWT', 'CA', 'NT'],
];

export const REGIONS: readonly Region[] = [
  ...US.map(([code, name]) => ({ code, name, country: 'US' as const })),
  ...CA.map(([code, name]) => ({ code, name, country: 'CA' as const })),
];

/** Upper case, accents folded, punctuation -> space, spaces collapsed. */
export function foldName(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .replace(/['’.]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const BY_KEY = new Map<string, Region[]>();
function addKey(k: string, r: Region): void {
  const list = BY_KEY.get(k) ?? [];
  if (!list.includes(r)) list.push(r);
  BY_KEY.set(k, list);
}
for (const r of REGIONS) {
  addKey(r.code, r);
  addKey(foldName(r.name), r);
}
for (const [alias, country, code] of REGION_ALIASES) {
  const r = REGIONS.find((x) => x.country === country && x.code === code);
  if (r) addKey(alias, r);
}

/** A region from its code ("MA", "US-MA") or name ("Massachusetts", "Québec"); country narrows two-way codes. */
export function lookupRegion(text: string, country?: 'US' | 'CA' | null): Region | null {
  // a two-letter code as written ("MA", on nearly every address) is its own fold
  let k = /^[A-Z]{2}$/.test(text) ? text : foldName(text);
  const prefixed = /^(US|CA) ([A-Z]{2})$/.exec(k);
  if (prefixed) {
    country = prefixed[1] as 'US' | 'CA';
    k = prefixed[2]!;
  }
  const list = (BY_KEY.get(k) ?? []).filter((r) => !country || r.country === country);
  // "CA" alone is California (a US state code), not Canada.
  return list.find((r) => r.country === 'US' && r.code === k) ?? list[0] ?? null;
}

// USPS three-digit ZIP prefixes by state (ranges inclusive). Military (AA/AE/AP) prefixes are not states here.
const ZIP3: readonly (readonly [number, number, string])[] = [
  [5, 5, 'NY'],
  [6, 7, 'PR'],
  [8, 8, 'VI'],
  [9, 9, 'PR'],
  [10, 27, 'MA'],
  [55, 55, 'MA'],
  [28, 29, 'RI'],
  [30, 38, 'NH'],
  [39, 49, 'ME'],
  [50, 54, 'VT'],
  [56, 59, 'VT'],
  [60, 69, 'CT'],
  [70, 89, 'NJ'],
  [100, 149, 'NY'],
  [150, 196, 'PA'],
  [197, 199, 'DE'],
  [200, 200, 'DC'],
  [202, 205, 'DC'],
  [569, 569, 'DC'],
  [201, 201, 'VA'],
  [206, 219, 'MD'],
  [220, 246, 'VA'],
  [247, 268, 'WV'],
  [270, 289, 'NC'],
  [290, 299, 'SC'],
  [300, 319, 'GA'],
  [398, 399, 'GA'],
  [320, 339, 'FL'],
  [341, 342, 'FL'],
  [344, 344, 'FL'],
  [346, 347, 'FL'],
  [349, 349, 'FL'],
  [350, 369, 'AL'],
  [370, 385, 'TN'],
  [386, 397, 'MS'],
  [400, 427, 'KY'],
  [430, 459, 'OH'],
  [460, 479, 'IN'],
  [480, 499, 'MI'],
  [500, 528, 'IA'],
  [530, 549, 'WI'],
  [550, 567, 'MN'],
  [570, 577, 'SD'],
  [580, 588, 'ND'],
  [590, 599, 'MT'],
  [600, 629, 'IL'],
  [630, 658, 'MO'],
  [660, 679, 'KS'],
  [680, 693, 'NE'],
  [700, 715, 'LA'],
  [716, 729, 'AR'],
  [730, 749, 'OK'],
  [733, 733, 'TX'],
  [750, 799, 'TX'],
  [885, 885, 'TX'],
  [800, 816, 'CO'],
  [820, 831, 'WY'],
  [832, 838, 'ID'],
  [840, 847, 'UT'],
  [850, 865, 'AZ'],
  [870, 884, 'NM'],
  [889, 898, 'NV'],
  [900, 961, 'CA'],
  [967, 968, 'HI'],
  [969, 969, 'GU'],
  [970, 979, 'OR'],
  [980, 994, 'WA'],
  [995, 999, 'AK'],
];

/** States a ZIP code's prefix can belong to (usually one; a few prefixes are shared). */
export function statesForZip(zip5: string): string[] {
  const p = Number.parseInt(zip5.slice(0, 3), 10);
  return ZIP3.filter(([lo, hi]) => p >= lo && p <= hi).map(([, , s]) => s);
}

/** Canada Post: the first letter of a postal code names the province or territory. */
const POSTAL_FIRST_LETTER: ReadonlyMap<string, readonly string[]> = new Map([
  ['A', ['NL']],
  ['B', ['NS']],
  ['C', ['PE']],
  ['E', ['NB']],
  ['G', ['QC']],
  ['H', ['QC']],
  ['J', ['QC']],
  ['K', ['ON']],
  ['L', ['ON']],
  ['M', ['ON']],
  ['N', ['ON']],
  ['P', ['ON']],
  ['R', ['MB']],
  ['S', ['SK']],
  ['T', ['AB']],
  ['V', ['BC']],
  ['X', ['NT', 'NU']],
  ['Y', ['YT']],
]);

export function provincesForPostalCode(code: string): readonly string[] {
  return POSTAL_FIRST_LETTER.get(code.charAt(0)) ?? [];
}
