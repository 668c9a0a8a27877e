// US states, DC and territories, and Canadian provinces and territories: ISO 3166-2 subdivision codes
// (without the country prefix) and names. Written here rather than taken from a package: it is short,
// it changes about once a generation, and place resolution must not depend on a data file's quirks.

export interface Region {
  code: string;
  name: string;
  country: 'US' | 'CA';
}

const US: [string, string][] = [
  ['AL', 'Alabama'], ['AK', 'Alaska'], ['AZ', 'Arizona'], ['AR', 'Arkansas'], ['CA', 'California'], ['CO', 'Colorado'],
  ['CT', 'Connecticut'], ['DE', 'Delaware'], ['DC', 'District of Columbia'], ['FL', 'Florida'], ['GA', 'Georgia'],
  ['HI', 'Hawaii'], ['ID', 'Idaho'], ['IL', 'Illinois'], ['IN', 'Indiana'], ['IA', 'Iowa'], ['KS', 'Kansas'],
  ['KY', 'Kentucky'], ['LA', 'Louisiana'], ['ME', 'Maine'], ['MD', 'Maryland'], ['MA', 'Massachusetts'],
  ['MI', 'Michigan'], ['MN', 'Minnesota'], ['MS', 'Mississippi'], ['MO', 'Missouri'], ['MT', 'Montana'],
  ['NE', 'Nebraska'], ['NV', 'Nevada'], ['NH', 'New Hampshire'], ['NJ', 'New Jersey'], ['NM', 'New Mexico'],
  ['NY', 'New York'], ['NC', 'North Carolina'], ['ND', 'North Dakota'], ['OH', 'Ohio'], ['OK', 'Oklahoma'],
  ['OR', 'Oregon'], ['PA', 'Pennsylvania'], ['RI', 'Rhode Island'], ['SC', 'South Carolina'], ['SD', 'South Dakota'],
  ['TN', 'Tennessee'], ['TX', 'Texas'], ['UT', 'Utah'], ['VT', 'Vermont'], ['VA', 'Virginia'], ['WA', 'Washington'],
  ['WV', 'West Virginia'], ['WI', 'Wisconsin'], ['WY', 'Wyoming'],
  ['PR', 'Puerto Rico'], ['GU', 'Guam'], ['VI', 'U.S. Virgin Islands'], ['AS', 'American Samoa'], ['MP', 'Northern Mariana Islands'],
];

const CA: [string, string][] = [
  ['AB', 'Alberta'], ['BC', 'British Columbia'], ['MB', 'Manitoba'], ['NB', 'New Brunswick'],
  ['NL', 'Newfoundland and Labrador'], ['NS', 'Nova Scotia'], ['NT', 'Northwest Territories'], ['NU', 'Nunavut'],
  ['ON', 'Ontario'], ['PE', 'Prince Edward Island'], ['QC', 'Quebec'], ['SK', 'Saskatchewan'], ['YT', 'Yukon'],
];

/** Other spellings people and postal systems use. */
const REGION_ALIASES: [string, 'US' | 'CA', string][] = [
  ['MASS', 'US', 'MA'], ['CALIF', 'US', 'CA'], ['WASHINGTON DC', 'US', 'DC'], ['DC', 'US', 'DC'], ['D C', 'US', 'DC'],
  ['PQ', 'CA', 'QC'], ['QUE', 'CA', 'QC'], ['QUEBEC', 'CA', 'QC'], ['NEWFOUNDLAND', 'CA', 'NL'], ['NF', 'CA', 'NL'],
  ['LABRADOR', 'CA', 'NL'], ['YUKON TERRITORY', 'CA', 'YT'], ['PEI', 'CA', 'PE'], ['NWT', 'CA', 'NT'],
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
