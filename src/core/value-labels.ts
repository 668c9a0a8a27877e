// One name per value for every surface a person reads (the web pages, the PDF, the CLI's text, the
// MCP summary): "Maximum floor area ratio (FAR)", never `maxFar`. Free text written for agents (the
// analysis's notes, the rules files' notes) names values and statuses by their keys; `forPeople`
// reads such text out in these words, so no key reaches a page.
import { VALUE_STATUS_WORDS } from './value-words.ts';

/** The readable name of each standard, derived value and lot measure a surface shows. */
export const VALUE_LABELS: Readonly<Record<string, string>> = {
  // the standards a rules file states (src/core/rules-schema.ts)
  maxHeightFt: 'Maximum height',
  maxHeightStoreys: 'Maximum storeys',
  maxFar: 'Maximum floor area ratio (FAR)',
  minLotAreaSqft: 'Minimum lot area',
  minLotAreaPerUnitSqft: 'Minimum lot area per dwelling unit',
  minLotWidthFt: 'Minimum lot width',
  minLotDepthFt: 'Minimum lot depth',
  minFrontYardFt: 'Minimum front yard',
  maxFrontYardFt: 'Maximum front yard',
  minSideYardFt: 'Minimum side yard',
  minSideYardSumFt: 'Minimum sum of the side yards',
  minStreetSideYardFt: 'Minimum street-side yard (corner lot)',
  maxStreetSideYardFt: 'Maximum street-side yard (corner lot)',
  minRearYardFt: 'Minimum rear yard',
  maxLotCoveragePct: 'Maximum lot coverage',
  minOpenSpacePct: 'Minimum open space',
  maxDensityUnitsPerAcre: 'Maximum density',
  maxUnitsPerLot: 'Maximum units per lot',
  maxUnitsPerBuilding: 'Maximum units per building',
  minHeightStoreys: 'Minimum storeys',
  minGreenScore: 'Minimum green score',
  // the envelope's derived members (src/core/envelope.ts)
  maxFloorAreaSqft: 'Maximum floor area',
  maxDwellingUnits: 'Maximum dwelling units',
  maxDwellingUnitsByDensity: 'Maximum dwelling units by density',
  maxFootprintSqft: 'Maximum footprint',
  buildableWidthFt: 'Buildable width',
  buildableDepthFt: 'Buildable depth',
  // the analysis's results (src/analysis/feasibility-analysis.ts)
  buildableFootprintSqft: 'Buildable footprint',
  maxStoreys: 'Maximum storeys',
  gfaEnvelopeSqft: 'Gross floor area envelope',
  // the lot measures derived values use
  'lot.areaSqft': 'Lot area',
  'lot.frontageFt': 'Lot frontage',
  'lot.depthFt': 'Lot depth',
};

/** "maxSideYardFt" → "Max side yard ft": a key no table names still reads as words. */
function humanise(key: string): string {
  const words = key.replace(/^lot\./, 'lot ').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The one name of a value on every surface. */
export function valueLabel(key: string): string {
  return VALUE_LABELS[key] ?? humanise(key);
}

const lowerFirst = (t: string) => (/^[A-Z][a-z]/.test(t) ? t.charAt(0).toLowerCase() + t.slice(1) : t); // keeps "FAR"

// Keys as they appear in notes: the labelled ones, `buildingTypes` (a rules file's member) and status codes.
const KEY_WORDS = new RegExp(`(?<![\\w.])(${Object.keys(VALUE_LABELS).map((k) => k.replace('.', '\\.')).join('|')})(?![\\w])`, 'g');
const STATUS_KEYS = new RegExp(`\\b(${Object.keys(VALUE_STATUS_WORDS).join('|')})\\b`, 'g');
const MEMBER_WORDS: Record<string, string> = { buildingTypes: 'the building types', otherStandards: 'the other standards' };
const MEMBER_KEYS = new RegExp(`\\b(${Object.keys(MEMBER_WORDS).join('|')})\\b`, 'g');

/**
 * Free text written with keys ("maxFar is not_extracted", "read buildingTypes", "lot.areaSqft") in
 * the words every surface uses ("maximum floor area ratio (FAR) is unknown: not extracted from the
 * bylaw", "read the building types", "lot area"). The research notes' file name reads as what it is.
 */
export function forPeople(text: string): string {
  return text
    .replace(KEY_WORDS, (k) => lowerFirst(VALUE_LABELS[k]!))
    .replace(STATUS_KEYS, (k) => VALUE_STATUS_WORDS[k as keyof typeof VALUE_STATUS_WORDS])
    .replace(MEMBER_KEYS, (k) => MEMBER_WORDS[k]!)
    .replace(/\bRULES-FACTS\.md\b/g, "the place's research notes");
}
