// Generates places/cambridge-ma/rules.json (output committed). Run:
//   node --import tsx src/rules/build-cambridge-rules.ts
// Source: /work/shared/data/cambridge-ma/RULES-FACTS.md, the only Cambridge rules source. It says
// no value was read from the ordinance itself (city news releases, notices and secondary accounts),
// so nothing here is cited: values are at best unverified_default with a note naming the source,
// districts with their own article are site_specific_schedule, and pre-2025 (stale) values are never
// served. Source ids (S1 ...) are those of RULES-FACTS.md.
import fs from 'node:fs';
import path from 'node:path';
import { placeRulesSchema, type DistrictRules, type RuleValue, type StandardKey, type UseRule, type OverlayRules, type PlaceRules } from './rules-schema.ts';

// The sources the notes name, defined once (the snapshot carries the ones its texts name).
const SOURCES: NonNullable<PlaceRules['sources']> = {
  S1: {
    name: 'CDD news release "Zoning for multifamily housing citywide"',
    label: 'CDD news release, Feb 2025',
    vintage: 'Feb 2025, reporting adoption on Feb 10, 2025',
    url: 'https://cambridgema.gov/News/detail?path=%2Fsitecore%2Fcontent%2Fhome%2Fcdd%2Fnews%2F2025%2F2%2Fzoningformultifamilyhousingcitywide',
  },
  S2: { name: 'CDD project page "Zoning for Multifamily Housing"', label: 'CDD project page, Jan 2025', vintage: 'Jan 2025', url: 'https://www.cambridgema.gov/CDD/Projects/Zoning/multifamilyhousing' },
  S3: { name: 'Ordinance Committee notice, multifamily petitions', label: 'Ordinance Committee notice, Dec 2024', vintage: 'Dec 4, 2024, petition intent', url: 'https://cambridgema.gov/citycalendar/view.aspx?guid=5a4270eec00949399d6eb56c528e55b9' },
  S4: { name: 'City Clerk legal notice, Mass Ave and Cambridge St petitions (republished)', label: 'City Clerk legal notice, Oct 2025', vintage: 'Oct 2025, petition intent', url: 'https://classifieds.gannettclassifieds.com/marketplace/advert/-Retail_1156907' },
  S5: { name: "Councillor Patty Nolan's account (secondary)", label: "A councillor's account (secondary)", vintage: '2025', url: 'https://pattynolan.org/issues-zoning/' },
  S6: { name: 'Cambridge Review, Ordinance Committee of Jan 16, 2025 (secondary)', label: 'Cambridge Review (secondary)', vintage: 'Jan 2025', url: 'https://cambridgereview.org/ordinance-committee-meeting-housing-16th-2024/' },
  S7: {
    name: 'BiggerPockets forum post (secondary, low weight)',
    label: 'Forum post (secondary, low weight)',
    vintage: '2025',
    url: 'https://biggerpockets.com/forums/888/topics/1233616-abolition-of-single-family-zoning-could-this-spread-to-all-areas-of-boston',
  },
  S10: { name: 'A Better Cambridge (advocacy)', label: 'Advocacy group (secondary)', vintage: 'Feb 2025', url: 'https://www.abettercambridge.org/cambridge_ends_exclusionary_zoning' },
  S12: { name: 'Harvard Crimson (secondary)', label: 'Harvard Crimson (secondary)', vintage: 'Dec 3, 2025', url: 'https://api.thecrimson.com/article/2025/12/3/Cambridge-Building-Heights' },
  S14: { name: 'Councillor Zusy newsletter #18 (secondary)', label: "A councillor's newsletter (secondary)", vintage: 'Dec 19, 2025', url: 'https://votezusy.org/wp/category/newsletters' },
};

// Said once for the place (see notes below), not on every value: nothing was read from the ordinance.
const unverified = (value: number | null, note: string, condition?: string): RuleValue => ({
  status: 'unverified_default',
  value,
  ...(condition ? { condition } : {}),
  note,
});
// A value no source gave is not_extracted with no note of its own: the place's note says, once, that
// no 2025 or later value was found for it in any source read (RULES-FACTS.md).
const notFound = (): RuleValue => ({ status: 'not_extracted' });

// One condition for the height in feet and in storeys (the snapshot writes a shared text once).
const HEIGHT_CONDITION =
  'residential developments; 74 ft / 6 stories if 20% of units are inclusionary and the lot is at least 5,000 sq ft (S1); 9 stories under the AHO (S2)';

const RES_YARD_CONDITION =
  'exceptions: S6 calls the rule "contextual" and excludes townhouses; S5 mentions row houses';

const C1: Partial<Record<StandardKey, RuleValue>> = {
  maxHeightFt: unverified(
    45,
    'Base height, S1.',
    HEIGHT_CONDITION,
  ),
  maxHeightStoreys: unverified(
    4,
    'Base height, S1.',
    HEIGHT_CONDITION,
  ),
  maxFar: unverified(
    null,
    'No limit: S1 says the "amount of floor area" limit was removed; S7 agrees. Whether non-residential uses keep one was not found.',
    'residential',
  ),
  minLotAreaSqft: unverified(null, 'No minimum: removed per S1 and S7.'),
  minLotAreaPerUnitSqft: unverified(null, 'No minimum: removed per S7; S1 says limits on the number of housing units were removed.'),
  minLotWidthFt: unverified(null, 'No minimum, per S7 only.'),
  minFrontYardFt: unverified(10, 'The adopted compromise as S5 gives it.'),
  minSideYardFt: unverified(5, 'S2: "minimum five-foot side and rear yard setbacks in all residential districts, with some exceptions".', RES_YARD_CONDITION),
  minRearYardFt: unverified(5, 'S2: "minimum five-foot side and rear yard setbacks in all residential districts, with some exceptions".', RES_YARD_CONDITION),
  minOpenSpacePct: unverified(30, 'Private open space ratio per S5 only; its basis (e.g. % of lot area) is not confirmed.'),
  maxLotCoveragePct: notFound(),
};

const OTHER_RES: Partial<Record<StandardKey, RuleValue>> = {
  minSideYardFt: unverified(
    5,
    'S2 says the 5-ft side and rear yard applies in "all residential districts", which would include this district, but no source gave the rule as it applies here.',
    `if S2's "all residential districts" covers this district; ${RES_YARD_CONDITION}`,
  ),
  minRearYardFt: unverified(
    5,
    'S2 says the 5-ft side and rear yard applies in "all residential districts", which would include this district, but no source gave the rule as it applies here.',
    `if S2's "all residential districts" covers this district; ${RES_YARD_CONDITION}`,
  ),
};

const multifamilyUses = (): UseRule[] => [
  {
    use: 'multifamily dwelling',
    permission: 'as_of_right',
    status: 'unverified_default',
    note: 'S3 (petition), S1 (adopted: "allow"), S10 ("by right").',
  },
  {
    use: 'townhouse',
    permission: 'as_of_right',
    status: 'unverified_default',
    note: 'S3 (petition); adopted per S7 only.',
  },
  { use: 'other uses', permission: 'unknown', status: 'not_extracted' },
];

interface Spec {
  codes: string[];
  name: (code: string) => string;
  governedBy?: string;
  note: string;
  standards?: Partial<Record<StandardKey, RuleValue>>;
  siteSpecific?: boolean;
  uses?: UseRule[];
}

const SPECS: Spec[] = [
  {
    codes: ['C-1'],
    name: () => 'Residence C-1',
    note: 'Since Feb 10, 2025, C-1 holds almost all former Residence A-1, A-2, B and C areas (S1).',
    standards: C1,
  },
  {
    codes: ['C-1A', 'C-2', 'C-2A', 'C-2B', 'C-3', 'C-3A', 'C-3B'],
    name: (c) => `Residence ${c}`,
    note: 'No post-2025 dimensional value was found for this district (RULES-FACTS.md §2); the 2025 petition amended Art. 5.000 (S3).',
    standards: OTHER_RES,
  },
  {
    codes: ['MAS-6', 'MAS-12', 'MAS-12A', 'MAS-18'],
    name: (c) => `Massachusetts Avenue ${c}`,
    note: 'Massachusetts Avenue district ordained Dec 22, 2025. Sources give a corridor maximum of 12 stories and 18 stories by PUD special permit in Porter Square (PUD-POR), but which MAS district gets 6, 12 or 18 stories was not confirmed, and no height in feet, FAR, lot or yard value was found (RULES-FACTS.md §3).',
  },
  {
    codes: ['CAM-6', 'CAM-10', 'CAM-12'],
    name: (c) => `Cambridge Street ${c}`,
    note: 'Cambridge Street district on the 2026 map; its adoption date and adopted text were not found. Sources give only proposal-stage heights (6 to 8 stories with active ground floors, 12 near Webster Ave/Windsor St) (RULES-FACTS.md §4).',
  },
  {
    codes: ['BA', 'BA-1', 'BA-2', 'BA-3', 'BA-4', 'BB', 'BB-1', 'BB-2'],
    name: (c) => `Business ${c.slice(1)}`,
    note: 'No dimensional value, current or usable pre-2025, was found for business districts (RULES-FACTS.md §5).',
  },
  {
    codes: ['O-1', 'O-2', 'O-2A', 'O-3', 'O-3A'],
    name: (c) => `Office ${c.slice(2)}`,
    note: 'No dimensional value, current or usable pre-2025, was found for office districts (RULES-FACTS.md §5).',
  },
  {
    codes: ['IA', 'IA-1', 'IA-2', 'IB', 'IB-1', 'IB-2'],
    name: (c) => `Industry ${c.slice(1)}`,
    note: 'No dimensional value, current or usable pre-2025, was found for industry districts (RULES-FACTS.md §5).',
  },
  {
    codes: ['OS'],
    name: () => 'Open Space',
    note: 'No dimensional value was found for Open Space (RULES-FACTS.md §6).',
    uses: [
      {
        use: 'multifamily dwelling',
        permission: 'prohibited',
        status: 'unverified_default',
        note: 'S1: "all districts (except open space) are zoned to allow multifamily housing".',
      },
      { use: 'other uses', permission: 'unknown', status: 'not_extracted' },
    ],
  },
  ...['SD-1', 'SD-2', 'SD-3', 'SD-4', 'SD-4A', 'SD-5', 'SD-6', 'SD-7', 'SD-8', 'SD-8A', 'SD-9', 'SD-10(F)', 'SD-10(H)', 'SD-11', 'SD-12', 'SD-13', 'SD-14', 'SD-15'].map(
    (code): Spec => ({
      codes: [code],
      name: (c) => `Special District ${c.slice(3)}`,
      governedBy: 'Art. 17.000 (Special Business, Office and Industrial Districts)',
      note: 'Governed by Art. 17.000, not by the Art. 5.000 tables; its dimensional values were not found (RULES-FACTS.md §6).',
      siteSpecific: true,
    }),
  ),
  {
    codes: ['MXD'],
    name: () => 'Mixed Use Development District: Cambridge Center',
    governedBy: 'Art. 14.000',
    note: 'Governed by Art. 14.000; values not found (RULES-FACTS.md §6).',
    siteSpecific: true,
  },
  {
    codes: ['ASD'],
    name: () => 'Ames Street District (within MXD)',
    governedBy: 'Art. 14.000',
    note: 'Within MXD, governed by Art. 14.000 (per a 2022 district list); values not found.',
    siteSpecific: true,
  },
  {
    codes: ['CRDD'],
    name: () => 'Cambridgeport Revitalization Development District',
    governedBy: 'Art. 15.000',
    note: 'Governed by Art. 15.000; values not found (RULES-FACTS.md §6).',
    siteSpecific: true,
  },
  {
    codes: ['NP'],
    name: () => 'North Point Residence, Office and Business District',
    governedBy: 'Art. 16.000',
    note: 'Governed by Art. 16.000; values not found (RULES-FACTS.md §6).',
    siteSpecific: true,
  },
];

const OVERLAYS: Record<string, OverlayRules> = {
  ...Object.fromEntries(
    ['PUD-1', 'PUD-2', 'PUD-3', 'PUD-3A', 'PUD-4', 'PUD-4A', 'PUD-4B', 'PUD-4C', 'PUD-5', 'PUD-6', 'PUD-KS', 'PUD-CDK'].map((c) => [
      c,
      {
        name: `Planned Unit Development ${c}`,
        governedBy: 'Arts. 12.000 (PUD procedure) and 13.000 (PUD districts)',
        note: 'Base-district rules apply unless a PUD special permit is used; PUD values not found.',
      },
    ]),
  ),
  'PUD-7': { name: 'Planned Unit Development PUD-7', governedBy: 'Sec. 13.90', note: 'Base-district rules apply unless a PUD special permit is used.' },
  'PUD-8': { name: 'Planned Unit Development PUD-8', governedBy: 'Sec. 13.100', note: 'Created in 2019 (CRT 2019 #78); base-district rules apply unless a PUD special permit is used.' },
  'PUD-POR': {
    name: 'Porter Square Planned Unit Development overlay',
    note: 'Sources report up to 18 residential stories by PUD special permit, in exchange for open space, retail and community benefits (S4, S12, S14); the governing section was not seen.',
  },
  MXR: { name: 'Mixed Use Residential', governedBy: 'Sec. 20.20' },
  'AOD-Q': { name: 'AOD-Q', governedBy: 'Sec. 20.1100', note: 'Ord. 2023-5.' },
  'AOD-5': { name: 'AOD-5', note: 'Governing section not found.' },
  'AOD-6': { name: 'AOD-6', note: 'Governing section not found.' },
  'Harvard Square': { name: 'Harvard Square Overlay District', governedBy: 'Sec. 20.50' },
  'Central Square': { name: 'Central Square Overlay District', governedBy: 'Sec. 20.300' },
  'Mass and Main Residential Mixed Income Subdistrict': { name: 'Mass and Main Residential Mixed Income Subdistrict', governedBy: 'Sec. 20.307' },
  Parkway: { name: 'Parkway Overlay District', governedBy: 'Sec. 20.60' },
  'Concord Avenue Parkway Subdistrict': { name: 'Concord Avenue Parkway Subdistrict', governedBy: 'Sec. 20.69' },
  'Memorial Drive': { name: 'Memorial Drive Overlay District', governedBy: 'Sec. 20.80' },
  'Mixed Use Residential': { name: 'Mixed Use Residential Overlay District', governedBy: 'Sec. 20.20' },
  'Eastern Cambridge Housing Overlay (ECHO)': { name: 'Eastern Cambridge Housing Overlay (ECHO)', governedBy: 'Sec. 20.40' },
  'Prospect Street': { name: 'Prospect Street Overlay District', governedBy: 'Sec. 20.200' },
  Pathway: { name: 'Pathway Overlay District', governedBy: 'Sec. 20.400' },
  'Lesley Porter': { name: 'Lesley Porter Overlay District', governedBy: 'Sec. 20.500' },
  'Basement Housing': { name: 'Basement Housing Overlay District', governedBy: 'Sec. 20.600' },
  'Grand Junction Pathway': { name: 'Grand Junction Pathway Overlay District', governedBy: 'Sec. 20.1000' },
  'East Cambridge Community Enhancement (ECCE)': { name: 'East Cambridge Community Enhancement (ECCE)', governedBy: 'Sec. 20.1200', note: 'Ord. 2025-10.' },
  'Hammond and Gorham Streets Transition': { name: 'Hammond and Gorham Streets Transition', governedBy: 'Sec. 20.11' },
  'Kirkland Place Transition': { name: 'Kirkland Place Transition', governedBy: 'Sec. 20.12' },
};

export function buildCambridgeRules(): PlaceRules {
  const districts: Record<string, DistrictRules> = {};
  for (const spec of SPECS)
    for (const code of spec.codes)
      districts[code] = {
        name: spec.name(code),
        ...(spec.governedBy ? { governedBy: spec.governedBy } : {}),
        note: spec.note,
        standards: spec.standards ?? {},
        otherStandards: spec.siteSpecific
          ? { status: 'site_specific_schedule', note: `District ${code} is governed by ${spec.governedBy}, not by the Art. 5.000 tables; the value was not extracted from it.` }
          : notFound(),
        uses: spec.uses ?? multifamilyUses(),
      };
  return placeRulesSchema.parse({
    slug: 'cambridge-ma',
    country: 'US',
    bylaw: { name: 'Cambridge Zoning Ordinance', url: 'https://cambridgema.gov/CDD/zoninganddevelopment/Zoning/Ordinance', date: 'as amended Feb 10, 2025 and Dec 22, 2025 (per city notices; the text itself was not read)' },
    notes: [
      'No value was read from the Zoning Ordinance itself (its Art. 4.000 and 5.000 tables were not seen): check them before relying on one. not_extracted: no 2025+ value in any source read (RULES-FACTS.md); pre-2025 values are stale, never served.',
      'Citywide Affordable Housing Overlay (AHO, Sec. 11.207, not mapped) may allow more height for 100% affordable projects.',
    ],
    sources: SOURCES,
    overlays: OVERLAYS,
    districts,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rules = buildCambridgeRules();
  const out = path.resolve(import.meta.dirname, '../../places/cambridge-ma/rules.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(rules, null, 2) + '\n');
  console.log(`wrote ${out}: ${Object.keys(rules.districts).length} districts`);
}
