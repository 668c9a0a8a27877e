// `siteline check "<address>" [--json]`: one snapshot, in-process, on the configured database.
// Exit 0 answered, 3 not covered (answered:false), 2 bad input or usage.
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openContext } from '../service.ts';
import { SitelineError } from '../core/errors.ts';
import { getFeasibilitySnapshot } from '../core/snapshot.ts';
import { STATUS_MEANINGS } from '../core/statuses.ts';
import type { Snapshot, Sourced } from '../core/snapshot-types.ts';

export const EXIT_ANSWERED = 0;
export const EXIT_BAD_INPUT = 2;
export const EXIT_NOT_COVERED = 3;

export async function run(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const words = argv.filter((a) => a !== '--json');
  if (words.some((w) => w.startsWith('--'))) {
    process.stderr.write(`Unknown option ${words.find((w) => w.startsWith('--'))}. Usage: siteline check "<address>" [--json]\n`);
    return EXIT_BAD_INPUT;
  }
  const address = words.join(' ');
  if (!address.trim()) {
    process.stderr.write('Usage: siteline check "<address>" [--json]   e.g. siteline check "57 Inman St, Cambridge, MA"\n');
    return EXIT_BAD_INPUT;
  }
  const config = loadConfig();
  const ctx = await openContext(config, { logger: createLogger('warn', process.stderr) });
  try {
    if (config.autoImport) {
      const { ensureDefaultPlaces } = await import('../importer/default-places.ts');
      await ensureDefaultPlaces(ctx);
    }
    let snap: Snapshot;
    try {
      snap = await getFeasibilitySnapshot(ctx, address);
    } catch (err) {
      if (err instanceof SitelineError && err.code === 'bad_input') {
        if (json) process.stdout.write(JSON.stringify({ error: { code: err.code, message: err.message } }, null, 2) + '\n');
        else process.stderr.write(`Cannot check that address: ${err.message}\n`);
        return EXIT_BAD_INPUT;
      }
      throw err;
    }
    process.stdout.write(json ? JSON.stringify(snap, null, 2) + '\n' : renderSnapshot(snap));
    return snap.answered ? EXIT_ANSWERED : EXIT_NOT_COVERED;
  } finally {
    await ctx.db.close();
  }
}

/** A value as a person reads it: a null is "unknown" unless the bylaw itself sets no limit. */
export function fmtValue(v: Sourced): string {
  if (v.status === 'no_limit_in_bylaw') return 'no limit (bylaw)';
  if (v.value === null || STATUS_MEANINGS[v.status].unknown) return 'unknown';
  return `${typeof v.value === 'number' ? v.value.toLocaleString('en-US') : String(v.value)}${v.unit ? ' ' + v.unit : ''}`;
}

/** The snapshot for a person: what was matched, the lot, the zones, then every envelope value with its status. */
export function renderSnapshot(s: Snapshot): string {
  const out: string[] = [];
  if (!s.answered) {
    out.push(`Not covered (${s.coverage.status}): ${s.coverage.message}`);
    if (!s.coverage.eligibilityKnown) out.push('Eligibility could not be determined.');
    if (s.suggestions?.length) out.push(`Did you mean: ${s.suggestions.join('; ')}?`);
    return out.join('\n') + '\n';
  }
  const a = s.address!;
  const lot = s.lot!;
  const z = s.zones!;
  out.push(`${a.matchedAddress}  (${s.coverage.place?.name}, ${s.coverage.place?.region})`);
  out.push(`  matched by ${a.matchType}, confidence ${a.confidence.toFixed(2)}`);
  for (const w of a.warnings) out.push(`  note: ${w}`);
  out.push('');
  out.push(`Lot ${lot.parcelExternalId}  at ${lot.latitude}, ${lot.longitude}`);
  out.push(`  area ${lot.areaSqft.toLocaleString('en-US')} sq ft (${lot.areaM2.toLocaleString('en-US')} m²)`);
  out.push(`  frontage ${lot.frontageFt.value ?? 'unknown'}${lot.frontageFt.value !== null ? ' ft' : ''}, depth ${lot.depthFt.value ?? 'unknown'}${lot.depthFt.value !== null ? ' ft' : ''}${lot.cornerLot ? ', corner lot' : ''}`);
  out.push(`  source ${lot.source.name} (${lot.source.vintage})`);
  out.push('');
  out.push(`Zoning ${z.primary ? `${z.primary.code}${z.primary.name ? ' — ' + z.primary.name : ''}` : 'not found'}${z.splitLot ? '  (split lot: ' + z.districts.map((d) => `${d.code} ${Math.round(d.share * 100)}%`).join(', ') + ')' : ''}`);
  for (const o of z.overlays) out.push(`  overlay ${o.name ?? o.code}${o.governingSection ? ` (${o.governingSection})` : ''}`);
  out.push('');
  out.push('Envelope');
  for (const [name, v] of Object.entries(s.envelope ?? {})) {
    const cite = v.citation ? `  [${v.citation.section}]` : '';
    out.push(`  ${name.padEnd(28)} ${fmtValue(v).padEnd(18)} ${v.status}${cite}`);
    // A value is never shown without what qualifies it: its condition, and the source of an indicative value.
    if (v.condition) out.push(`      condition: ${v.condition}`);
    if (v.citation) out.push(`      source: ${v.citation.sourceUrl} (${v.citation.date})`);
    if (v.value !== null && v.note && v.status !== 'cited') out.push(`      note: ${v.note}`);
  }
  if (s.permittedUses?.length) {
    out.push('');
    out.push('Uses');
    for (const u of s.permittedUses) out.push(`  ${u.use.padEnd(28)} ${u.permission.padEnd(18)} ${u.status}`);
  }
  out.push('');
  out.push('Sources');
  for (const src of s.sources) out.push(`  ${src.layer}: ${src.name} (${src.vintage}; ${src.licence})`);
  return out.join('\n') + '\n';
}
