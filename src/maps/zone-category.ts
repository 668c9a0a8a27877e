// The zone category of a district, for colouring the map (and, later, for the public map listing):
// one of a few broad kinds a reader recognises at a glance. Read from the district's name first
// (Cambridge, Saanich, Paradise name their districts), then from the code's prefix (Chicago's
// zones carry no name). A district nothing recognises is `other`, never guessed further.

export const ZONE_CATEGORIES = ['residential', 'mixed_use', 'commercial', 'industrial', 'institutional', 'open_space', 'rural', 'special', 'other'] as const;
export type ZoneCategory = (typeof ZONE_CATEGORIES)[number];

/** Label and fill colour of each category (colour-blind-safe-ish hues; text never relies on colour alone). */
export const CATEGORY_STYLE: Record<ZoneCategory, { label: string; colour: string }> = {
  residential: { label: 'Residential', colour: '#f2c94c' },
  mixed_use: { label: 'Mixed use / downtown', colour: '#e07b39' },
  commercial: { label: 'Commercial / business / office', colour: '#d94f70' },
  industrial: { label: 'Industrial / manufacturing', colour: '#8e6bbf' },
  institutional: { label: 'Public / institutional', colour: '#4a90d9' },
  open_space: { label: 'Open space / parks', colour: '#4caf6a' },
  rural: { label: 'Rural / agricultural', colour: '#a3b86c' },
  special: { label: 'Special / planned development', colour: '#9aa0a6' },
  other: { label: 'Other / not classified', colour: '#c8c8c8' },
};

const BY_NAME: [RegExp, ZoneCategory][] = [
  [/planned manufacturing/i, 'industrial'],
  [/mixed|downtown|residential mixed|mass(achusetts)? ?ave/i, 'mixed_use'],
  [/open space|park|recreation|conservation/i, 'open_space'],
  [/rural|agricultur|farm/i, 'rural'],
  [/special|planned|comprehensive development/i, 'special'],
  [/industr|manufactur/i, 'industrial'],
  [/public|institution|school|universit|civic|hospital/i, 'institutional'],
  [/business|commercial|shopping|office|retail/i, 'commercial'],
  [/residen|dwelling|family|apartment|housing/i, 'residential'],
  // Corridor districts named after their street (Cambridge's MAS-*, CAM-*) are mixed-use corridors.
  [/\b(avenue|street)\b/i, 'mixed_use'],
];

const BY_CODE: [RegExp, ZoneCategory][] = [
  [/^(POS|OS)\b/i, 'open_space'],
  [/^(PMD|M\d)/i, 'industrial'],
  [/^(PD|SD|PUD)\b/i, 'special'],
  [/^D[CRSX]-/i, 'mixed_use'],
  [/^(B\d|C\d)-/i, 'commercial'],
  [/^(RS|RT|RM|R\d)/i, 'residential'],
];

export function zoneCategory(code: string, name: string | null | undefined): ZoneCategory {
  if (name) for (const [re, c] of BY_NAME) if (re.test(name)) return c;
  for (const [re, c] of BY_CODE) if (re.test(code)) return c;
  return 'other';
}
