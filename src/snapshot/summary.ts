// A snapshot in a few sentences: the summary a tool result's text leads with, before the whole answer
// as JSON text (for text-only clients) and beside the structured content (docs/mcp.md). A reader of the
// summary alone learns the lot, the zone, then every warning that changes how the answer may be used
// (src/snapshot/answer-warnings.ts: the match, the lot area, ...), then the headline values.
import { valueWords } from '../core/value-words.ts';
import { answerWarnings } from './answer-warnings.ts';
import type { Snapshot } from '../core/snapshot-types.ts';

const HEADLINE = ['maxHeightFt', 'maxHeightStoreys', 'maxFar'] as const;

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
      answerWarnings(s)
        .map((w) => `${w.text} `)
        .join('') +
      `District not stated: ${s.districtChoice.message} Districts: ${s.districtChoice.districts.map((d) => `${d.code} (${d.name})`).join(', ')}. ` +
      'Call again with district (and buildingType, and conditions where its table states values under them) for the envelope.'
    );
  }
  const env = s.envelope ?? {};
  // A stated district's source is the first warning below (answer-warnings.ts); the zone names the building type.
  const stated = z.districtSource?.buildingType ? ` / ${z.districtSource.buildingType}` : '';
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
    // Every warning that changes how the answer may be used, worded as the page words it (answer-warnings.ts).
    answerWarnings(s)
      .map((w) => `${w.text} `)
      .join('') +
    `${headline ? `${headline}. ` : ''}Envelope statuses: ${statuses}. ` +
    (s.districtChoice ? `${s.districtChoice.message} ` : '') +
    "The structured content has each value's status, condition, notes and sources."
  );
}
