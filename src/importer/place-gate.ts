// The one gate `data check` and `data import` share: from the sources as read (row tallies and rows in
// memory), the checksum problems, the citation verdict and the manifest, it says whether the place
// would be refused (nothing imported), loaded but not live, or live, with the numbers that decided it.
// Every refusal names the manifest setting (or file) that governs it and its current value.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_JOIN_THRESHOLDS, DEFAULT_MAX_REJECTED_SHARE, DEFAULT_MAX_SHRINK_SHARE, type Manifest, type ManifestSource } from '../places/manifest.ts';
import { joinRate, type ImportReport, type JoinGate, type SourceReport } from '../places/import-report.ts';
import { LotIndex } from './lot-index.ts';
import type { PlaceRows } from './transform-sources.ts';
import type { CitationVerdict } from './place-citations.ts';

export interface GateRefusal {
  /** What is wrong, with its numbers. */
  problem: string;
  /** Where it is governed: a manifest setting (`sources[zoning].maxRejectedShare`), a file or the rules file. */
  setting: string;
  /** The setting's current value, as written (or its default). */
  value: string;
  /** Whether `data import --force` loads the place anyway. */
  forceable: boolean;
  /** A layer that shrank past its maxShrinkShare: only `--accept-shrink "<reason>"` lets it through (recorded in the change log). */
  shrink?: boolean;
}

export interface PlaceVerdict {
  /** refused: nothing is imported; not_live: loaded, kept planned_not_live; live; planned: a planned place (no join gate). */
  verdict: 'refused' | 'not_live' | 'live' | 'planned';
  refusals: GateRefusal[];
  /** Join rates measured in memory from the rows as read (the same numbers for check and import). */
  joinRates: ImportReport['joinRates'];
  /** The join thresholds (live manifests only). */
  gate?: JoinGate;
  /** Placeholders ("TO CONFIRM", ...) left in the manifest or the rules file. */
  placeholders: string[];
}

/** Address -> lot, lot -> zone (a point inside each lot), address -> lot -> zone and lot -> overlay, from rows in memory. */
export function measureRows(rows: PlaceRows): ImportReport['joinRates'] {
  const base = rows.zones.filter((z) => z.layer === 'base');
  const overlay = rows.zones.filter((z) => z.layer === 'overlay');
  const baseIndex = new LotIndex(base.map((z) => ({ id: z.zoneId, geom: z.geom, bbox: z.bbox })));
  const overlayIndex = new LotIndex(overlay.map((z) => ({ id: z.zoneId, geom: z.geom, bbox: z.bbox })));
  const zoned = new Set<string>();
  let inOverlay = 0;
  for (const p of rows.parcels.values()) {
    if (baseIndex.lotsAt([p.insideLon, p.insideLat]).length) zoned.add(p.parcelExtId);
    if (overlay.length && overlayIndex.lotsAt([p.insideLon, p.insideLat]).length) inOverlay++;
  }
  const withLot = rows.addresses.filter((a) => a.parcelExtId !== null && rows.parcels.has(a.parcelExtId));
  return {
    addressToParcel: joinRate(withLot.length, rows.addresses.length),
    parcelToZone: joinRate(zoned.size, rows.parcels.size),
    addressToParcelToZone: joinRate(withLot.filter((a) => zoned.has(a.parcelExtId!)).length, rows.addresses.length),
    parcelToOverlay: overlay.length ? joinRate(inOverlay, rows.parcels.size) : joinRate(0, 0),
  };
}

/** Words a drafted file leaves for a person to replace. */
const PLACEHOLDER = /\b(TO CONFIRM|TODO|TBD|FIXME|CHANGEME|FILL ME IN)\b/;

/** Every string value holding a placeholder, as `path: "value"`. */
function findPlaceholders(value: unknown, where: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown, p: string) => {
    if (typeof v === 'string') {
      if (PLACEHOLDER.test(v)) out.push(`${where} ${p}: ${JSON.stringify(v.length > 90 ? `${v.slice(0, 87)}...` : v)}`);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${p}[${i}]`));
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const [k, x] of Object.entries(o)) walk(x, Array.isArray(v) ? p : p ? `${p}.${k}` : k);
    }
  };
  if (Array.isArray(value)) walk(value, '');
  else if (value && typeof value === 'object') {
    // Sources are named by id, not index: sources[zoning].vintage.
    for (const [k, x] of Object.entries(value as Record<string, unknown>)) {
      if ((k === 'sources' || k === 'documents') && Array.isArray(x))
        x.forEach((s, i) => walk(s, `${k}[${(s as { id?: string; file?: string })?.id ?? (s as { file?: string })?.file ?? i}]`));
      else walk(x, k);
    }
  }
  return out;
}

/** Placeholders in the place's manifest.json and rules file as written on disk. */
export function placePlaceholders(m: Manifest, placesDir: string): string[] {
  const out: string[] = [];
  for (const [file, label] of [
    ['manifest.json', 'manifest.json'],
    [path.basename(m.rulesFile ?? 'rules.json'), path.basename(m.rulesFile ?? 'rules.json')],
  ] as const) {
    const abs = path.join(placesDir, m.slug, file);
    if (!fs.existsSync(abs)) continue;
    try {
      out.push(...findPlaceholders(JSON.parse(fs.readFileSync(abs, 'utf8')), label));
    } catch {
      /* an unreadable file is reported by its own loader */
    }
  }
  return out;
}

const pctOf = (n: number, d: number) => `${((n / d) * 100).toFixed(1)} %`;

/** What refuses a source: rows that yielded nothing usable, a rejected share or row count beyond the manifest's bounds. */
function sourceRefusals(s: ManifestSource, r: SourceReport): GateRefusal[] {
  const out: GateRefusal[] = [];
  if (r.rowsRead > 0 && r.rowsLoaded === 0) {
    const mapping = JSON.stringify(Object.fromEntries(Object.entries(s.load).filter(([k]) => !['target', 'attrs', 'map', 'patterns'].includes(k))));
    const why = r.rejects[0] ? ` (${r.rejects[0].count} x ${r.rejects[0].reason}, e.g. ${r.rejects[0].examples.slice(0, 2).join('; ')})` : '';
    out.push({
      problem: `${s.id} (${s.file}): ${r.rowsRead} rows read, none usable${why}: a renamed field or a wrong id column`,
      setting: `sources[${s.id}].load`,
      value: mapping,
      forceable: true,
    });
  }
  if (r.rowsRead > 0 && r.rowsRejected / r.rowsRead > s.maxRejectedShare) {
    const top = r.rejects[0] ? `; most: ${r.rejects[0].count} x ${r.rejects[0].reason}` : '';
    out.push({
      problem: `${s.id} (${s.file}): ${r.rowsRejected} of ${r.rowsRead} rows rejected (${pctOf(r.rowsRejected, r.rowsRead)}), above the limit of ${(s.maxRejectedShare * 100).toFixed(1)} %${top}`,
      setting: `sources[${s.id}].maxRejectedShare`,
      value: `${s.maxRejectedShare}${s.maxRejectedShare === DEFAULT_MAX_REJECTED_SHARE ? ' (the default)' : ''}`,
      forceable: true,
    });
  }
  if (s.expectedRows !== undefined && Math.abs(r.rowsRead - s.expectedRows) > s.expectedRows * s.rowTolerance) {
    out.push({
      problem: `${s.id} (${s.file}): ${r.rowsRead} rows read, the manifest expects ${s.expectedRows} (within ${(s.rowTolerance * 100).toFixed(1)} %)`,
      setting: `sources[${s.id}].expectedRows`,
      value: `${s.expectedRows} (rowTolerance ${s.rowTolerance})`,
      forceable: true,
    });
  }
  out.push(...shrinkRefusals(s, r));
  return out;
}

/**
 * A layer that lost more than its maxShrinkShare of the rows or features recorded in the manifest
 * (`counts`, written by data init and data update): a half-copied or half-published file must not go
 * live. Growth is never refused here.
 */
export function shrinkRefusals(s: ManifestSource, r: Pick<SourceReport, 'rowsRead' | 'rowsLoaded'>): GateRefusal[] {
  if (!s.counts) return [];
  const share = s.maxShrinkShare ?? DEFAULT_MAX_SHRINK_SHARE;
  const out: GateRefusal[] = [];
  for (const [what, before, now] of [
    ['rows', s.counts.rows, r.rowsRead],
    ['features', s.counts.features, r.rowsLoaded],
  ] as const) {
    if (before === 0 || now >= before * (1 - share)) continue;
    out.push({
      problem: `${s.id} (${s.file}) shrank: ${now} ${what}, ${before} recorded (lost ${before - now}, ${pctOf(before - now, before)}), more than the ${(share * 100).toFixed(1)} % allowed`,
      setting: `sources[${s.id}].maxShrinkShare`,
      value: `${share}${s.maxShrinkShare === undefined ? ' (the default)' : ''}`,
      forceable: false,
      shrink: true,
    });
  }
  return out;
}

/** The join thresholds of a live manifest against measured rates; each problem names its setting and value. */
export function joinGate(m: Manifest, rates: ImportReport['joinRates']): JoinGate | undefined {
  if (m.status !== 'live') return undefined;
  const thresholds = {
    addressToLot: m.joinThresholds?.addressToLot ?? DEFAULT_JOIN_THRESHOLDS.addressToLot,
    lotToZone: m.joinThresholds?.lotToZone ?? DEFAULT_JOIN_THRESHOLDS.lotToZone,
  };
  const problems: string[] = [];
  const setting = (k: 'addressToLot' | 'lotToZone') =>
    `manifest joinThresholds.${k} = ${thresholds[k]}${m.joinThresholds?.[k] === undefined ? ' (the default)' : ''}`;
  const check = (label: string, j: ImportReport['joinRates']['addressToParcel'], k: 'addressToLot' | 'lotToZone', none: string) => {
    if (j.rate === null) problems.push(`${label}: ${none}`);
    else if (j.rate < thresholds[k])
      problems.push(`${label} is ${(j.rate * 100).toFixed(2)} % (${j.matched} of ${j.total}), below ${(thresholds[k] * 100).toFixed(0)} % (${setting(k)})`);
  };
  check('address -> lot', rates.addressToParcel, 'addressToLot', 'no addresses were loaded, so no address can find its lot');
  // A place without a zoning map (districtSource stated) takes each answer's district from its caller: no lot -> zone join to pass.
  if (m.districtSource === 'stated') {
    if (rates.parcelToZone.total === 0) problems.push('lot -> zone: no lots were loaded');
    return { passed: problems.length === 0, thresholds, problems, districtsStated: true };
  }
  check('lot -> zone', rates.parcelToZone, 'lotToZone', 'no lots were loaded');
  return { passed: problems.length === 0, thresholds, problems };
}

export interface GateInput {
  manifest: Manifest;
  placesDir: string;
  /** Each source with its tally report, in load order. */
  sources: { source: ManifestSource; report: SourceReport }[];
  rows: PlaceRows;
  /** Checksum problems (missing file, sha256 mismatch). */
  fileProblems: string[];
  citations: CitationVerdict;
  /** `--force`: forceable refusals do not refuse. */
  force?: boolean;
  /** `--accept-shrink "<reason>"`: a layer that shrank does not refuse (the reason goes into the change log). */
  acceptShrink?: string;
}

/** The verdict (see the file comment). */
export function placeVerdict(input: GateInput): PlaceVerdict {
  const m = input.manifest;
  const refusals: GateRefusal[] = [];
  for (const p of input.fileProblems) {
    const file = p.replace(/^(missing|checksum mismatch): /, '').split(' ')[0]!;
    const s = m.sources.find((x) => x.file === file);
    refusals.push({
      problem: p,
      setting: s ? `sources[${s.id}].sha256` : `the sha256 of ${file}`,
      value: s ? s.sha256 : '(see the manifest)',
      forceable: false,
    });
  }
  for (const { source, report } of input.sources) refusals.push(...sourceRefusals(source, report));
  const c = input.citations;
  if (c.rulesProblem && c.rulesProblem !== 'no rules.json')
    refusals.push({ problem: `the rules file does not load: ${c.rulesProblem}`, setting: 'rulesFile', value: m.rulesFile ?? 'rules.json', forceable: false });
  for (const f of c.failures) {
    refusals.push({
      problem: `cited value ${f.district}${f.buildingType ? ` / ${f.buildingType}` : ''} ${f.item} does not verify: ${f.why}`,
      setting: `${m.rulesFile ?? 'rules.json'} districts.${f.district}`,
      value: f.item,
      forceable: false,
    });
  }
  const placeholders = m.status === 'live' ? placePlaceholders(m, input.placesDir) : [];
  if (placeholders.length) {
    refusals.push({
      problem: `${placeholders.length} placeholder(s) left in a place whose manifest says live:\n      ${placeholders.join('\n      ')}`,
      setting: 'manifest status (or the values named)',
      value: m.status,
      forceable: false,
    });
  }
  const joinRates = measureRows(input.rows);
  const gate = joinGate(m, joinRates);
  const blocking = refusals.filter((r) => isBlocking(r, input));
  const verdict: PlaceVerdict['verdict'] = blocking.length ? 'refused' : gate && !gate.passed ? 'not_live' : m.status === 'live' ? 'live' : 'planned';
  return { verdict, refusals, joinRates, ...(gate ? { gate } : {}), placeholders };
}

/** Whether a refusal still refuses given --force and --accept-shrink. */
export function isBlocking(r: GateRefusal, opts: { force?: boolean; acceptShrink?: string }): boolean {
  if (r.shrink) return !opts.acceptShrink;
  return !r.forceable || !opts.force;
}

/** A refusal as one line: the problem, then the setting that governs it and its value. */
export function describeRefusal(r: GateRefusal): string {
  return `${r.problem} [governed by ${r.setting} = ${r.value}${r.forceable ? '; or --force' : ''}${r.shrink ? '; or --accept-shrink "<reason>"' : ''}]`;
}

/** The verdict's lines for a terminal (check and import print the same). */
export function formatVerdict(v: PlaceVerdict, mode: 'check' | 'import'): string[] {
  const L: string[] = [];
  const would = mode === 'check' ? 'an import would be' : 'the import was';
  if (v.refusals.length) {
    L.push(`  ${v.verdict === 'refused' ? 'REFUSED' : 'forced past'}: ${would} refused, nothing imported, for:`);
    for (const r of v.refusals) L.push(`    - ${describeRefusal(r)}`);
  }
  if (v.gate) {
    const t = v.gate.districtsStated
      ? `address -> lot >= ${(v.gate.thresholds.addressToLot * 100).toFixed(0)} %; lot -> zone not required: no zoning map, each answer's district is stated by its caller`
      : `address -> lot >= ${(v.gate.thresholds.addressToLot * 100).toFixed(0)} %, lot -> zone >= ${(v.gate.thresholds.lotToZone * 100).toFixed(0)} %`;
    if (v.gate.passed) L.push(`  joins: the join rates pass the thresholds (${t})`);
    else L.push(`  joins: below the thresholds (${t}); the place would stay planned_not_live:`, ...v.gate.problems.map((p) => `    - ${p}`));
  }
  const word = {
    refused: 'REFUSED (nothing would be imported)',
    not_live: 'NOT LIVE (loaded, kept planned_not_live)',
    live: 'LIVE',
    planned: 'planned_not_live (the manifest says so)',
  }[v.verdict];
  L.push(`  verdict: ${word}`);
  return L;
}

/** A digest of each district's rules in the place's rules file (what changed between two imports). */
export function rulesDigests(m: Manifest, placesDir: string): Record<string, string> {
  try {
    const rules = JSON.parse(fs.readFileSync(path.join(placesDir, m.slug, path.basename(m.rulesFile ?? 'rules.json')), 'utf8')) as {
      districts?: Record<string, unknown>;
    };
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    return Object.fromEntries(
      Object.entries(rules.districts ?? {}).map(([code, d]) => [
        code,
        crypto
          .createHash('sha256')
          .update(JSON.stringify(sorted(d)))
          .digest('hex')
          .slice(0, 16),
      ]),
    );
  } catch {
    return {}; // no rules file, or one that does not parse: no digests to compare (the rules check reports a broken file)
  }
}
