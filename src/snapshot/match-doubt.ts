// When the matched lot may not be the one the person meant: one rule and one wording for every surface
// (the site page opens with it, the CLI prints it to stderr and exits 6, the MCP text leads with it).
import type { AddressMatch } from '../core/snapshot-types.ts';

/**
 * Below this confidence a match is not presented as sure. On Cambridge, answers at 0.7 were the right lot
 * about 75 % of the time and at 0.5 about 43 % (issue 27's held-out measure); an exact address-table
 * match is 1.0 and the assessor's own row for the address 0.9.
 */
export const SURE_MATCH_CONFIDENCE = 0.8;

export interface MatchDoubt {
  headline: string;
  reason: string;
  next: string;
}

const HOW: Record<AddressMatch['matchType'], string> = {
  address_table: 'The address was found in the city address table, but not exactly as written or not on one lot',
  assessor_table: "The address is not tied to a lot in the city address table; the lot is the one the assessor's table lists for it",
  street_interpolation: 'The address is not tied to a lot in any table; the lot was located by its number along the street',
  lot_id: 'You picked the lot by its id',
};

/** How the lot was found, in the words every surface uses (the page's lede, the MCP summary). */
export const MATCH_HOW: Record<AddressMatch['matchType'], string> = {
  address_table: 'found in the city address table',
  assessor_table: "found in the assessor's table of lot addresses",
  street_interpolation: 'located by interpolating along the street',
  lot_id: 'the lot you picked by its id',
};

/** The doubt to state before anything else, or null for a sure match. */
export function matchDoubt(a: AddressMatch): MatchDoubt | null {
  if (a.confidence >= SURE_MATCH_CONFIDENCE) return null;
  return {
    headline: 'We are not sure this is the lot you meant',
    reason: `${HOW[a.matchType]} (match confidence ${a.confidence}, below ${SURE_MATCH_CONFIDENCE}).`,
    // The CLI and MCP text keep these words (answers are compared byte for byte); the web page says its own
    // (the lot id field and the map: src/web/site-page.ts lotPickForm), where picking the lot works.
    next: 'Check the lot on the map and the notes below before relying on any value; a full address with its postcode or unit, or the lot id, gives a surer answer.',
  };
}
