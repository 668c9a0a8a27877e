// A snapshot in a few sentences: the summary a tool result's text leads with, before the whole answer
// as JSON text (for text-only clients) and beside the structured content (docs/mcp.md). A reader of the
// summary alone learns the lot, the zone, the headline values and, first, any doubt about the match.
import { valueWords } from '../core/value-words.ts';
import { matchDoubt } from './match-doubt.ts';
import type { AddressMatch, Snapshot, SnapshotValue } from '../core/snapshot-types.ts';

const HEADLINE = ['maxHeightFt', 'maxHeightStoreys', 'maxFar'] as const;


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
  if (!z.primary && s.districtChoice) {
    // A place without a zoning map, no district stated: the lot, then what to state (never a guessed district).
    return (
      `${s.address!.matchedAddress}, ${s.coverage.place?.name ?? ''}: lot ${lot.parcelExternalId}, ${lot.areaSqft} sq ft. ` +
      matchWords(s.address!) +
      `District not stated: ${s.districtChoice.message} Districts: ${s.districtChoice.districts.map((d) => `${d.code} (${d.name})`).join(', ')}. ` +
      'Call again with district (and buildingType, and conditions where its table states values under them) for the envelope.'
    );
  }
  const env = s.envelope ?? {};
  const said = z.districtSource?.conditions?.length ? `; ${z.districtSource.conditions.map((c) => `${c.name.toLowerCase()}: ${c.value}`).join(', ')}, stated by the caller` : '';
  const stated = z.districtSource ? ` (${[z.primary, z.districtSource.buildingType].filter(Boolean).join(' / ')} ${z.districtSource.statement}${said})` : '';
  const zone = z.primary ? `zone ${z.primary}${stated}${z.splitLot ? ` (split lot: ${z.districts.map((d) => d.code).join(', ')})` : ''}` : 'no zone found';
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
    if (!v) continue;
    const w = valueWords(v);
    // The status in words (its code is in the structured content and in the counts below). A
    // number's status words say how far to rely on it; a value without one also says what the
    // analysis does with it (the same words the page, the PDF and the CLI print).
    headline += `${headline ? '; ' : ''}${k} ${w.line}${v.value === null ? `: ${w.analysis.charAt(0).toLowerCase()}${w.analysis.slice(1, -1)}` : ''}`;
  }
  return (
    `${s.address!.matchedAddress}, ${s.coverage.place?.name ?? ''}: lot ${lot.parcelExternalId}, ${lot.areaSqft} sq ft, ${zone}${overlays}. ` +
    matchWords(s.address!) +
    `${headline ? `${headline}. ` : ''}Envelope statuses: ${statuses}. ` +
    (s.districtChoice ? `${s.districtChoice.message} ` : '') +
    "The structured content has each value's status, condition, notes and sources."
  );
}
