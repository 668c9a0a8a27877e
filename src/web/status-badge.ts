// A status as a person reads it: a short label on a badge whose look says how far to rely on it,
// with the full meaning on hover and in the page's legend. The raw code is kept for agents and search.
import { STATUS_MEANINGS, type Status } from '../core/statuses.ts';
import { VALUE_STATUS_WORDS } from '../core/value-words.ts';
import { html, type Html } from './html.ts';

export const STATUS_LABELS: Record<Status, string> = {
  live: 'live',
  live_unavailable: 'live, data unavailable',
  planned_not_live: 'planned, not live',
  geo_division_uncatalogued: 'place not recognised',
  unseeded_place: 'no data for this city',
  geocode_failed: 'address not matched',
  // A value status reads as every surface words it (src/core/value-words.ts).
  ...VALUE_STATUS_WORDS,
};

/** The badge's look: relied on (authoritative), indicative, unknown, or the bylaw's own "no limit". */
export function badgeKind(status: Status): 'authoritative' | 'indicative' | 'unknown' | 'nolimit' {
  if (status === 'no_limit_in_bylaw') return 'nolimit';
  const m = STATUS_MEANINGS[status];
  if (m.unknown) return 'unknown';
  if (m.authoritative || status === 'derived_from_cited' || status === 'live') return 'authoritative';
  return 'indicative';
}

export function statusBadge(status: Status): Html {
  return html`<span class="badge badge-${badgeKind(status)}" data-status="${status}" title="${STATUS_MEANINGS[status].meaning}">${STATUS_LABELS[status]}</span>`;
}
