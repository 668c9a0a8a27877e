// The warnings that change how an answer may be used, as a list the MCP summary renders first
// (src/snapshot/summary.ts: the first text block, what a text-only client shows before anything else).
// Each entry reads the snapshot and words its warning with the function the web page uses for the same
// thing, so the page and the text cannot disagree:
//   - place not live: the status label of src/core/status-words.ts and the coverage message (the
//     page's lede prints the same label on its badge, then the message);
//   - the match: matchDoubt() below the sure-match threshold (the page's alert box, same three parts),
//     else how it was found in MATCH_HOW's words (the page's lede);
//   - the lot area: areaWarning()'s sentence as the answer carries it (the page's "Things to know").
//   - a district stated by the caller: the sentence the answer's warnings carry (stated-district.ts).
// A new warning is one more rule in ANSWER_WARNING_RULES.
import type { AddressMatch, Snapshot } from '../core/snapshot-types.ts';
import { STATUS_LABELS } from '../core/status-words.ts';
import { isAreaWarning } from './lot-area-warning.ts';
import { MATCH_HOW, matchDoubt } from './match-doubt.ts';
import { statedSentence } from './stated-district.ts';

export interface AnswerWarning {
  /** What it is about: place_not_live, uncertain_match, inexact_match, lot_area, ... */
  kind: string;
  /** The warning in words, ending with a full stop. */
  text: string;
}

/** One warning: null when the answer does not call for it. */
export type AnswerWarningRule = (s: Snapshot) => AnswerWarning | null;

/** An answered snapshot from a place that is not live (only possible once districts can be stated). */
const placeNotLive: AnswerWarningRule = (s) =>
  s.answered && s.coverage.status !== 'live' ? { kind: 'place_not_live', text: `Coverage: ${STATUS_LABELS[s.coverage.status]}. ${s.coverage.message}` } : null;

/** A district the caller stated (a place without a zoning map): where the district came from, first. */
const statedDistrict: AnswerWarningRule = (s) => {
  const z = s.answered ? s.zones : undefined;
  if (!z?.primary || !z.districtSource) return null;
  const name = z.districts.find((d) => d.code === z.primary)?.name ?? z.primary;
  return {
    kind: 'stated_district',
    text: statedSentence(z.primary, name, z.districtSource.buildingType, z.districtSource.statement, z.districtSource.conditions ?? []),
  };
};

/**
 * How sure the match is, when it is anything but an exact address-table match: a reader of the text
 * alone must not take a guessed lot for a certain one. The geocoder's first warning says why the
 * match is not exact.
 */
const match: AnswerWarningRule = (s) => {
  const a: AddressMatch | undefined = s.address;
  if (!s.answered || !a) return null;
  // The geocoder's reason, not a warning another rule says (the lot area, the stated district).
  const first = a.warnings[0];
  const why = first && !isAreaWarning(first) && first !== statedDistrict(s)?.text ? ` ${first}` : '';
  const doubt = matchDoubt(a);
  if (doubt) return { kind: 'uncertain_match', text: `${doubt.headline}. ${doubt.reason}${why} ${doubt.next}` };
  if (a.matchType === 'address_table' && a.confidence >= 1) return null;
  return { kind: 'inexact_match', text: `Address ${MATCH_HOW[a.matchType]} (match confidence ${a.confidence}).${why} Confirm the lot before relying on it.` };
};

/** The lot polygon and the assessor's land area disagree: every value computed from the area is uncertain. */
const lotArea: AnswerWarningRule = (s) => {
  const text = s.answered ? s.address?.warnings.find(isAreaWarning) : undefined;
  return text ? { kind: 'lot_area', text } : null;
};

/** In the order the summary says them. */
export const ANSWER_WARNING_RULES: AnswerWarningRule[] = [placeNotLive, statedDistrict, match, lotArea];

export function answerWarnings(s: Snapshot, rules: readonly AnswerWarningRule[] = ANSWER_WARNING_RULES): AnswerWarning[] {
  const out: AnswerWarning[] = [];
  for (const rule of rules) {
    const w = rule(s);
    if (w) out.push(w);
  }
  return out;
}
