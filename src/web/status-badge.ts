// A status as a person reads it: a short label on a badge whose look says how far to rely on it,
// with the full meaning on hover and in the page's legend. The raw code is kept for agents and search.
import { STATUS_MEANINGS, type Status } from '../core/statuses.ts';
import { STATUS_LABELS } from '../core/status-words.ts';
import { html, type Html } from '../http/html.ts';

/** The labels live in core (src/core/status-words.ts): the MCP texts word statuses the same way. */
export { STATUS_LABELS };

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
