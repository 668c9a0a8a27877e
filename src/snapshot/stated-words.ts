// The words a caller states with an address (src/snapshot/stated-district.ts), checked before anything
// is looked up, in every place.
import { SitelineError } from '../core/errors.ts';
import { CONTROL_CHARS } from '../geocoder/parse-address.ts';
import type { StatedDistrict } from './stated-district.ts';

const STATED_WORDS: Record<string, string> = { district: 'district', buildingType: 'building type', conditions: 'condition' };

/**
 * The words stated with an address, refused before anything is looked up when one holds control
 * characters (the address parser's set: a NUL, an escape, a bidirectional override), in every place:
 * where a zoning map gives the district they are not used but said back in a warning, and an address
 * outside coverage never reads them. So every surface refuses them alike (getFeasibilitySnapshot, a
 * project's lot).
 */
export function refuseStatedControlCharacters(stated: StatedDistrict | undefined): void {
  for (const [key, v] of Object.entries(stated ?? {}))
    for (const t of Array.isArray(v) ? v : [v])
      if (typeof t === 'string' && CONTROL_CHARS.test(t))
        throw new SitelineError('bad_input', `The ${STATED_WORDS[key] ?? key} holds control characters; state it as plain words.`);
}
