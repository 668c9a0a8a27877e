// Generates places/chicago-il/rules.json (output committed). Run:
//   node --import tsx src/rules/build-chicago-rules.ts [sourceDir]
// Base values come from the 2nd City Zoning district pages (chicago-il/zone/*.md), a secondary
// transcription: unverified_default, with the page named. Values that were read from the Chicago
// Zoning Ordinance text itself (Title 17, as published by American Legal Publishing, or the
// chicagocode.org republication) are listed in ORDINANCE below with their section, and override the
// transcription as cited. The script prints where the transcription and the ordinance disagree.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { placeRulesSchema, type DistrictRules, type RuleValue, type StandardKey, type PlaceRules } from './rules-schema.ts';

const TRANSCRIPTION = 'https://github.com/datamade/second-city-zoning/blob/412482d0acad86ccc07283b46e4311757b577a12';
const AMLEGAL_17_3_0400 = 'https://codelibrary.amlegal.com/codes/chicago/latest/chicago_il/0-0-0-2681378';
const AMLEGAL_17_4_0400 = 'https://codelibrary.amlegal.com/codes/chicago/latest/chicago_il/0-0-0-2699407';
const CHICAGOCODE_17_2_0300 = 'https://chicagocode.org/17-2-0300/';
const READ = "undated 'latest' online edition, read 2026-11-21";

/** Front matter of a zone/*.md page: key: "value" pairs, values possibly spanning lines. */
export function parseFrontMatter(text: string): Record<string, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!m) throw new Error('no front matter');
  const out: Record<string, string> = {};
  const re = /^([a-z_]+):[ \t]*(?:"((?:[^"\\]|\\.)*)"|([^\n]*))$/gm;
  let g: RegExpExecArray | null;
  while ((g = re.exec(m[1]!))) out[g[1]!] = (g[2] ?? g[3] ?? '').trim();
  for (const k of Object.keys(out))
    out[k] = out[k]!.replace(/&#58;/g, ':')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/\s*\n\s*/g, ' ');
  return out;
}

/**
 * A transcription field as an unverified value. Forms read: a plain number ("38 ft"); a number with a
 * condition in words and no other figure ("30 ft for detached house. None for schools and churches.");
 * "50 ft or 28% of lot depth, whichever is less" and "45 ft for residential buildings with lot frontage
 * of less than 32 ft, 47 ft when lot front is over that" (tiers resolved per lot); "None". Anything
 * else is prose: not_extracted, quoted in the note.
 */
function fromTranscription(code: string, field: string, text: string, unitPattern: RegExp): RuleValue {
  const page = `${TRANSCRIPTION}/zone/${code}.md`;
  const src = `2nd City Zoning page ${code} (${field}), a secondary transcription not checked against the ordinance: ${page}`;
  if (text === '' || text === 'N/A') return { status: 'not_extracted', note: `The 2nd City Zoning page ${code} gives no ${field}.` };
  const formula = /^(\d+)\s*(?:ft|feet),? or (\d+(?:\.\d+)?)% of lot (depth|width),? whichever is (less|greater)\.?$/i.exec(text);
  if (formula) {
    const pick = formula[4]!.toLowerCase() === 'less' ? ('min' as const) : ('max' as const);
    return { status: 'unverified_default', tiers: [{ when: [], values: [formula[1]!, `${Number(formula[2]) / 100} * lot_${formula[3]!.toLowerCase()}`], pick }], condition: text, note: src };
  }
  const byFrontage = /^(\d+) ft for residential buildings with lot frontage of less than (\d+) ft, (\d+) ft when lot front is over that\.\s*(.*)$/i.exec(text);
  if (byFrontage) {
    const [, low, cut, high, rest] = byFrontage;
    return {
      status: 'unverified_default',
      tiers: [
        { when: [`lot_width < ${cut}`], values: [low!] },
        { when: [`lot_width >= ${cut}`], values: [high!] },
      ],
      condition: `residential buildings${rest ? ` (${rest})` : ''}`,
      note: src,
    };
  }
  const num = unitPattern.exec(text);
  if (num && !/for each foot/i.test(text)) {
    const rest = text.slice(num[0].length).trim();
    const perDwelling = /^\/dwelling unit\b/.test(rest);
    if (!/\d/.test(rest) || perDwelling) {
      const value = Number(num[1]!.replace(/,/g, ''));
      return { status: 'unverified_default', value, ...(rest ? { condition: text } : {}), note: src };
    }
  }
  if (/^None\.?$/i.test(text) || /^None, /i.test(text)) return { status: 'unverified_default', value: null, ...(/^None\.?$/i.test(text) ? {} : { condition: text }), note: `The transcription reads "${text}". ${src}` };
  return { status: 'not_extracted', note: `Stated in words, not extracted: "${text}" (${src}).` };
}

const FT = /^(\d+(?:\.\d+)?)\s*(?:ft|feet)\b\.?/i;
const SQFT = /^([\d,]+(?:\.\d+)?)\s*sq\.?\s*ft\b/i;

interface Cited {
  districts: RegExp;
  key: StandardKey;
  value: (code: string) => number | null;
  status?: 'cited' | 'no_limit_in_bylaw';
  section: string;
  url: string;
  excerpt: (code: string) => string;
  note?: string;
  tiers?: RuleValue['tiers'];
  tiersFor?: (code: string) => RuleValue['tiers'];
  date?: string;
}

const dash = (code: string) => code.split('-').slice(1).join('-');
const BC_LAPU: Record<string, number> = { '1': 2500, '1.5': 1350, '2': 1000, '3': 400, '5': 200 };
const BC_FAR: Record<string, number> = { '1': 1.2, '1.5': 1.5, '2': 2.2, '3': 3.0, '5': 5.0 };
const D_LAPU: Record<string, number> = { '3': 400, '5': 200, '7': 145, '10': 115, '12': 115, '16': 100 };
const R_LOT_AREA: Record<string, number> = {
  'RS-1': 6250,
  'RS-2': 5000,
  'RS-3': 2500,
  'RT-3.5': 2500,
  'RT-4': 1650,
  'RM-4.5': 1650,
  'RM-5': 1650,
  'RM-5.5': 1650,
  'RM-6': 1650,
  'RM-6.5': 1650,
};

const SITE_SPECIFIC = new Set(['PD', 'PMD']);

/**
 * Table 17-3-0408-A, maximum building height (ft) in B and C districts by lot frontage band
 * (<= 25 ft, 25-50, 50-99.9, >= 100) and by whether the building has ground-floor commercial
 * space complying with 17-3-0305. The table has no "without" row for dash 1 and dash 1.5.
 */
const BC_HEIGHT: Record<string, { with: number[]; without?: number[] }> = {
  '1': { with: [38, 38, 38, 38] },
  '1.5': { with: [38, 38, 38, 38] },
  '2': { with: [47, 50, 50, 50], without: [45, 45, 45, 45] },
  '3': { with: [50, 55, 65, 65], without: [50, 50, 60, 60] },
  '5': { with: [50, 55, 70, 80], without: [50, 50, 65, 75] },
};
const FRONTAGE_BANDS = ['lot_width <= 25', 'lot_width > 25 and lot_width < 50', 'lot_width >= 50 and lot_width < 100', 'lot_width >= 100'];
const GFC = 'ground_floor_commercial == TRUE';
const NO_GFC = 'ground_floor_commercial == FALSE';

function bcHeightTiers(code: string): RuleValue['tiers'] {
  const row = BC_HEIGHT[dash(code)];
  if (!row) return undefined;
  const tiers = row.with.map((h, i) => ({ when: [GFC, FRONTAGE_BANDS[i]!], values: [String(h)] }));
  if (row.without) tiers.push(...row.without.map((h, i) => ({ when: [NO_GFC, FRONTAGE_BANDS[i]!], values: [String(h)] })));
  return tiers;
}
const bcHeightExcerpt = (code: string) => {
  const row = BC_HEIGHT[dash(code)];
  if (!row) return '';
  return `Buildings with ground-floor commercial space that complies with Sec. 17-3-0305: Dash ${dash(code)} ${row.with.join(' ')}${
    row.without ? `; without: Dash ${dash(code)} ${row.without.join(' ')}` : ''
  } (lot frontage <= 25 / 25-50 / 50-99.9 / >= 100 ft)`;
};

/** Values read from the ordinance text itself, with their sections. */
const ORDINANCE: Cited[] = [
  {
    districts: /^[BC]\d-/,
    key: 'minLotAreaPerUnitSqft',
    value: (c) => BC_LAPU[dash(c)] ?? null,
    section: '17-3-0402-A',
    url: AMLEGAL_17_3_0400,
    excerpt: (c) => `Minimum Lot Area per Unit, Per Dwelling Unit: Dash ${dash(c)} ${BC_LAPU[dash(c)]?.toLocaleString('en-US')}`,
    note: 'Applies to residential development where allowed. Reduced standards for transit-served locations in dash-3 districts (17-3-0402-B) need a Type I map amendment.',
  },
  {
    districts: /^[BC]\d-/,
    key: 'maxFar',
    value: (c) => BC_FAR[dash(c)] ?? null,
    section: '17-3-0403-A',
    url: AMLEGAL_17_3_0400,
    excerpt: (c) => `Maximum Floor Area Ratio: Dash ${dash(c)} ${BC_FAR[dash(c)]}`,
    note: 'FAR increases for transit-served locations in dash-3 districts (17-3-0403-B) need a Type I map amendment.',
  },
  {
    districts: /^[BC]\d-/,
    key: 'maxHeightFt',
    value: () => null,
    section: '17-3-0408-A',
    url: 'https://fliphtml5.com/aoemy/mbjm/Chicago_Zoning_Code/40',
    date: '2023-10-02',
    excerpt: bcHeightExcerpt,
    tiersFor: bcHeightTiers,
    note: 'Read from an American Legal Publishing export of the Chicago Zoning Code dated 2023-10-02 (re-hosted on fliphtml5). On lots with several frontages the shortest frontage counts; lot_width is the lot frontage. Whether the building has qualifying ground-floor commercial space is a design choice the service does not know. Transit-served increases: 17-3-0408-B.',
  },
  {
    districts: /^D[CRSX]-/,
    key: 'minLotAreaSqft',
    value: () => null,
    status: 'no_limit_in_bylaw',
    section: '17-4-0402',
    url: AMLEGAL_17_4_0400,
    excerpt: () => 'There are no minimum lot area standards for the "D" districts.',
  },
  {
    districts: /^D[CRSX]-/,
    key: 'minLotWidthFt',
    value: () => null,
    status: 'no_limit_in_bylaw',
    section: '17-4-0403',
    url: AMLEGAL_17_4_0400,
    excerpt: () => 'There are no minimum lot frontage standards for the "D" districts.',
    note: 'The ordinance states a minimum lot frontage; frontage is the lot width along the street.',
  },
  {
    districts: /^D[CRSX]-/,
    key: 'minLotAreaPerUnitSqft',
    value: (c) => D_LAPU[dash(c)] ?? null,
    section: '17-4-0404-A',
    url: AMLEGAL_17_4_0400,
    excerpt: (c) => `Dash Designation -${dash(c)}: Dwelling units: ${D_LAPU[dash(c)]}`,
    note: 'Reduced with downtown floor area bonuses (17-4-0404-B).',
  },
  {
    districts: /^R[STM]-/,
    key: 'minLotAreaSqft',
    value: (c) => R_LOT_AREA[c] ?? null,
    section: '17-2-0301-A',
    url: CHICAGOCODE_17_2_0300,
    excerpt: (c) => `Minimum Lot Area (square feet): ${c.replace('-', '')} ${R_LOT_AREA[c]?.toLocaleString('en-US')}`,
    note: 'Exemptions in 17-2-0301-B (contextual standard in RS-1/RS-2; lots of record). Read from the chicagocode.org republication of the Municipal Code.',
  },
  {
    districts: /^RS-[12]$/,
    key: 'minLotWidthFt',
    value: () => null,
    section: '17-2-0302-A',
    url: CHICAGOCODE_17_2_0300,
    excerpt: () =>
      'all lots in RS1 and RS2 districts must have a minimum lot frontage of 25 feet or the predominant lot frontage of similarly zoned lots on the same block face, whichever is greater',
    tiers: [{ when: [], values: ['25', 'predominant lot frontage of similarly zoned lots on the same block face'], pick: 'max' }],
    note: 'Needs the predominant frontage on the block face, which the service does not have. Exemption for lots of record in 17-2-0302-B.',
  },
];

export function buildChicagoRules(sourceDir: string): { rules: PlaceRules; disagreements: string[] } {
  const dir = path.join(sourceDir, 'chicago-il', 'zone');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
  const districts: Record<string, DistrictRules> = {};
  const disagreements: string[] = [];
  for (const f of files) {
    const fm = parseFrontMatter(fs.readFileSync(path.join(dir, f), 'utf8'));
    const code = fm.district_type_code!;
    const section = fm.zoning_code_section || undefined;
    if (SITE_SPECIFIC.has(code)) {
      districts[code] = {
        name: fm.district_title!,
        governedBy: `its own ${code === 'PD' ? 'planned development' : 'planned manufacturing district'} ordinance (${section})`,
        note: `Each ${code} has a site-specific ordinance; the zone-level tables do not apply.`,
        standards: {},
        otherStandards: { status: 'site_specific_schedule', note: `Set by the ${code}'s own ordinance (Sec. ${section}); not extracted.` },
        uses: [],
      };
      continue;
    }
    const standards: Partial<Record<StandardKey, RuleValue>> = {
      maxFar: fromTranscription(code, 'floor_area_ratio', fm.floor_area_ratio ?? '', /^(\d+(?:\.\d+)?)(?=\.?\s|\.?$)\.?/),
      maxHeightFt: fromTranscription(code, 'maximum_building_height', fm.maximum_building_height ?? '', FT),
      minLotAreaPerUnitSqft: fromTranscription(code, 'lot_area_per_unit', fm.lot_area_per_unit ?? '', SQFT),
      minLotAreaSqft: fromTranscription(code, 'minimum_lot_area', fm.minimum_lot_area ?? '', SQFT),
      minFrontYardFt: fromTranscription(code, 'front_yard_setback', fm.front_yard_setback ?? '', FT),
      minSideYardFt: fromTranscription(code, 'side_setback', fm.side_setback ?? '', FT),
      minRearYardFt: fromTranscription(code, 'rear_yard_setback', fm.rear_yard_setback ?? '', FT),
    };
    for (const c of ORDINANCE) {
      if (!c.districts.test(code)) continue;
      const value = c.value(code);
      const tiers = c.tiersFor ? c.tiersFor(code) : c.tiers;
      if (value === null && c.status !== 'no_limit_in_bylaw' && !tiers) continue;
      const citation = { section: c.section, sourceUrl: c.url, date: c.date ?? READ, excerpt: c.excerpt(code) };
      const before = standards[c.key];
      if (before?.value !== undefined && before.value !== null && value !== null && before.value !== value)
        disagreements.push(`${code} ${c.key}: transcription ${before.value}, ordinance ${value} (${c.section})`);
      standards[c.key] = tiers
        ? { status: 'cited', tiers, citation, ...(c.note ? { note: c.note } : {}) }
        : { status: c.status ?? 'cited', ...(value !== null ? { value } : {}), citation, ...(c.note ? { note: c.note } : {}) };
    }
    districts[code] = {
      name: fm.district_title!,
      ...(section ? { governedBy: `Sec. ${section}` } : {}),
      sourceUrl: `${TRANSCRIPTION}/zone/${code}.md`,
      standards,
      otherStandards: { status: 'not_extracted', note: `Not extracted for ${code}; read the bulk and density standards of Title 17 for the district.` },
      uses: [],
    };
  }
  const rules = placeRulesSchema.parse({
    slug: 'chicago-il',
    country: 'US',
    bylaw: { name: 'Chicago Zoning Ordinance (Municipal Code Title 17)', url: 'https://codelibrary.amlegal.com/codes/chicago/latest/chicago_il/', date: "undated 'latest' online edition (read 2026-11-21)" },
    notes: [
      'Chicago values marked unverified_default come from the 2nd City Zoning district pages (a secondary transcription, edited 2014-2022); cited values were read from the ordinance text with their section.',
    ],
    aliases: { 'RM4.5': 'RM-4.5', 'RM5.5': 'RM-5.5', 'RM4-.5': 'RM-4.5', 'PMD-4': 'PMD', 'PMD-11': 'PMD', PMD13: 'PMD' },
    patterns: [
      { match: '^PD\\s*\\d+', district: 'PD' },
      { match: '^PMD\\s*\\d+', district: 'PMD' },
    ],
    overlays: {},
    districts,
  });
  return { rules, disagreements };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sourceDir = process.argv[2] ?? loadConfig().sourceDir;
  if (!sourceDir) throw new Error('no source directory: pass it or set SITELINE_SOURCE_DIR');
  const { rules, disagreements } = buildChicagoRules(sourceDir);
  const out = path.resolve(import.meta.dirname, '../../places/chicago-il/rules.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(rules, null, 2) + '\n');
  console.log(`wrote ${out}: ${Object.keys(rules.districts).length} districts`);
  for (const d of disagreements) console.log(`disagreement: ${d}`);
}
