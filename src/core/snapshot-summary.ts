// A snapshot in a few sentences: the summary a tool result's text leads with, before the whole answer
// as JSON text (for text-only clients) and beside the structured content (docs/mcp.md). A reader of the
// summary alone learns the lot, the zone, the headline values and, first, any doubt about the match.
import { STATUS_MEANINGS } from './statuses.ts';
import { matchDoubt } from './match-doubt.ts';
import type { AddressMatch, Snapshot, SnapshotValue } from './snapshot-types.ts';

const HEADLINE = ['maxHeightFt', 'maxHeightStoreys', 'maxFar'] as const;

function valueWords(v: SnapshotValue): string {
  if (v.status === 'no_limit_in_bylaw') return 'no limit';
  if (v.value === null || STATUS_MEANINGS[v.status].unknown) return 'unknown';
  return `${v.value}${v.unit && v.unit !== 'ratio' ? ` ${v.unit}` : ''}`;
}

const HOW: Record<AddressMatch['matchType'], string> = {
  address_table: 'from the address table',
  assessor_table: "from the assessor's location table",
  street_interpolation: "by interpolating the street's number range (not an address in the table)",
};

/**
 * How sure the match is, when it is anything but an exact address-table match: a reader of the text
 * alone must not take a guessed lot for a certain one. The first warning is the geocoder's own (why
 * the match is not exact); the rest, about districts and rules, stay in the structured content.
 * Empty for an exact match.
 */
function matchWords(a: AddressMatch): string {
  // Below SURE_MATCH_CONFIDENCE the text leads with the same doubt the page and the CLI state.
  const doubt = matchDoubt(a);
  const why = a.warnings[0] ? ` ${a.warnings[0]}` : '';
  if (doubt) return `${doubt.headline}. ${doubt.reason}${why} ${doubt.next} `;
  if (a.matchType === 'address_table' && a.confidence >= 1) return '';
  return `Address matched ${HOW[a.matchType]}, confidence ${a.confidence}.${why} Confirm the lot before relying on it. `;
}

export function snapshotSummary(s: Snapshot): string {
  if (!s.answered) {
    const more = s.suggestions?.length ? ` Did you mean: ${s.suggestions.slice(0, 3).join('; ')}?` : '';
    return `Not answered (coverage ${s.coverage.status}): ${s.coverage.message}${more}`;
  }
  const lot = s.lot!;
  const z = s.zones!;
  const env = s.envelope ?? {};
  const zone = z.primary ? `zone ${z.primary}${z.splitLot ? ` (split lot: ${z.districts.map((d) => d.code).join(', ')})` : ''}` : 'no zone found';
  const overlays = z.overlays.length ? `, overlays ${z.overlays.map((o) => o.code).join(', ')}` : '';
  // on every MCP snapshot: plain loops, no intermediate arrays
  const counts = new Map<string, number>();
  for (const k in env) {
    const st = env[k]!.status;
    counts.set(st, (counts.get(st) ?? 0) + 1);
  }
  let statuses = '';
  for (const [st, n] of counts) statuses += `${statuses ? ', ' : ''}${n} ${st}`;
  let headline = '';
  for (const k of HEADLINE) {
    const v = env[k];
    if (v) headline += `${headline ? '; ' : ''}${k} ${valueWords(v)} (${v.status})`;
  }
  return (
    `${s.address!.matchedAddress}, ${s.coverage.place?.name ?? ''}: lot ${lot.parcelExternalId}, ${lot.areaSqft} sq ft, ${zone}${overlays}. ` +
    matchWords(s.address!) +
    `${headline}. Envelope statuses: ${statuses}. ` +
    'Each value with its status, condition, notes and sources is in the structured content.'
  );
}
