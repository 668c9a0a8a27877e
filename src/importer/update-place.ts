// `siteline data update <place>`: the town republished some files. Finds which files changed (sha256),
// reports a column renamed in a new file as a renamed column (and follows it), checks the candidate
// with the one gate (place-gate.ts) and computes what would change against the live import (lots
// added / removed, lots whose zone or area changed, districts added / removed / whose rules changed),
// all before anything is written. Applying it writes the manifest (new checksums and vintages) and
// imports; the previous import stays live unless the new one passes the gate.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import type { MultiPolygonCoords } from '../core/geo/primitives.ts';
import { loadManifest, manifestPath, parseManifest, sourceFiles, type Manifest, type ManifestSource } from '../places/manifest.ts';
import { placeRootFor, sha256File } from './import-place.ts';
import { checkManifestJoins, type JoinCheck } from './check-joins.ts';
import { readSource, sourceColumns } from './read-source.ts';
import { LotIndex } from './lot-index.ts';
import { rulesDigests } from './place-gate.ts';
import { bboxOf } from '../core/geo/primitives.ts';
import { guessDelimiter } from './inspect-layers.ts';
import { decodeText } from './readers/text-encoding.ts';
import { isPersonalColumn } from './personal-columns.ts';

const EXAMPLES = 25;

export interface RenamedColumn {
  sourceId: string;
  file: string;
  /** The manifest setting that named the old column, e.g. load.code.field. */
  setting: string;
  from: string;
  to: string;
  evidence: string;
}

/** A layer's rows (records read) and features (rows loaded) before (the manifest's counts, else the last import) and after. */
export interface LayerCounts {
  sourceId: string;
  file: string;
  rows: { before: number | null; after: number };
  features: { before: number | null; after: number };
}

export interface ChangeLog {
  /** The vintage the new import is recorded as (the --vintage given, else the date of the update). */
  vintage: string;
  files: { sourceId: string; file: string; before: string; after: string }[];
  /** Per layer: rows and features before and after (what the clerk confirms). */
  layers?: LayerCounts[];
  /** A CSV republished with another delimiter: read as data init reads it, and the manifest follows. */
  formatChanges?: { sourceId: string; file: string; setting: string; from: string; to: string }[];
  /** `--accept-shrink "<reason>"`: the layers that shrank past their maxShrinkShare and were accepted. */
  acceptedShrink?: { reason: string; problems: string[] };
  renamedColumns: RenamedColumn[];
  /** Mapped columns missing from a new file with no column to follow. */
  missingColumns: { sourceId: string; file: string; setting: string; column: string }[];
  lots: {
    before: number;
    after: number;
    added: { count: number; examples: string[] };
    removed: { count: number; examples: string[] };
    zoneChanged: { count: number; examples: { lot: string; from: string | null; to: string | null }[] };
    areaChanged: { count: number; examples: { lot: string; fromM2: number; toM2: number }[] };
    /** A removed lot whose ground now holds two or more added lots. */
    split?: { count: number; examples: { from: string; to: string[] }[] };
    /** An added lot holding the ground of two or more removed lots. */
    merged?: { count: number; examples: { from: string[]; to: string }[] };
  };
  /** Address rows before and after; addresses (number, street, unit) added and removed. */
  addresses?: { before: number; after: number; added: { count: number; examples: string[] }; removed: { count: number; examples: string[] } };
  districts: { added: string[]; removed: string[]; rulesChanged: string[]; rulesNote?: string };
}

/** One change of an update: a lot or an address (place_changes keeps every one; the change log only counts and examples). */
export interface ChangeEntry {
  kind: 'lot_added' | 'lot_removed' | 'lot_rezoned' | 'lot_area_changed' | 'lot_split' | 'lot_merged' | 'address_added' | 'address_removed';
  subject: string;
  detail: Record<string, unknown>;
}

export interface UpdatePlan {
  slug: string;
  /** Every change, complete (the change log holds counts and up to 25 examples of each). */
  entries: ChangeEntry[];
  placeId: string;
  /** No file changed: nothing to do. */
  unchanged: boolean;
  changes: ChangeLog;
  /** The candidate manifest (new checksums, vintages, followed renames), checked and not yet written. */
  manifest: Manifest;
  manifestText: string;
  check: JoinCheck;
}

/** The columns a load mapping names, as [setting, column] pairs. */
function mappedColumns(s: ManifestSource): [string, string][] {
  const l = s.load as Record<string, unknown>;
  const out: [string, string][] = [];
  const walk = (v: unknown, p: string) => {
    if (typeof v === 'string' && /(^|\.)(field|idField|nameField|codeField|descriptionField|locationField|overlayTagField)$|^load\.fields\.[a-zA-Z]+$/.test(p))
      out.push([p, v]);
    else if (v && typeof v === 'object' && !Array.isArray(v) && !/\.(map|where)$/.test(p)) for (const [k, x] of Object.entries(v)) walk(x, `${p}.${k}`);
  };
  for (const [k, v] of Object.entries(l)) if (k !== 'target') walk(v, `load.${k}`);
  return out;
}

function setAt(obj: Record<string, unknown>, setting: string, value: string): void {
  const keys = setting.split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
  o[keys[keys.length - 1]!] = value;
}

const share = (n: number, d: number) => (d ? `${((n / d) * 100).toFixed(1)} %` : 'n/a');

/** The previous vintage's record of the place (columns, rules digests), if it has one. */
async function lastVintage(ctx: AppContext, placeId: string): Promise<{ columns: Record<string, string[]>; rules: Record<string, string> } | null> {
  const r = await ctx.db.query<{ columns: Record<string, string[]>; rules_digests: Record<string, string> }>(
    'SELECT columns, rules_digests FROM place_vintages WHERE place_id = $1 ORDER BY vintage_id DESC LIMIT 1',
    [placeId],
  );
  return r[0] ? { columns: r[0].columns ?? {}, rules: r[0].rules_digests ?? {} } : null;
}

type RawManifest = { sources: Record<string, unknown>[] };

/**
 * Plans an update (see the file comment); writes nothing. Four steps: which files changed (new
 * checksums and vintages in the raw manifest); which mapped columns a new file renamed (followed) or
 * lost; the one gate on the candidate manifest; what changes against the live import.
 */
export async function planUpdate(
  ctx: AppContext,
  slug: string,
  opts: { sourceDir?: string; placesDir?: string; vintage?: string; acceptShrink?: string } = {},
): Promise<UpdatePlan> {
  const placesDir = opts.placesDir ?? ctx.config.placesDir;
  const m = loadManifest(slug, placesDir);
  const sourceDir = opts.sourceDir ?? ctx.config.sourceDir;
  const { placeRoot } = placeRootFor(sourceDir, m);
  const vintage = opts.vintage ?? ctx.clock.now().toISOString().slice(0, 10);
  const raw = JSON.parse(fs.readFileSync(manifestPath(slug, placesDir), 'utf8')) as RawManifest;
  const placeId = m.geoDivisionId;

  const { files, changedSources } = await changedFiles(m, placeRoot, raw, vintage);
  const formatChanges = followCsvFormat(m, placeRoot, raw, changedSources);
  await recordedCounts(ctx, m, raw);
  const prev = await lastVintage(ctx, placeId);
  // The renamed-column search reads the files as the candidate will (a followed delimiter included).
  const reading = formatChanges.length ? parseManifest(JSON.stringify(raw), `the updated manifest of ${slug}`) : m;
  const { renamedColumns, missingColumns } = await followRenamedColumns(ctx, reading, placeRoot, raw, changedSources, prev);
  const candidate = parseManifest(JSON.stringify(raw, null, 2) + '\n', `the updated manifest of ${slug}`);
  const { check, rows } = await checkManifestJoins(candidate, { sourceDir, placesDir, ...(opts.acceptShrink ? { acceptShrink: opts.acceptShrink } : {}) });
  const { lots, districts, addresses, entries } = await changesAgainstLive(ctx, placeId, rows, candidate, placesDir, prev);
  // What the clerk confirms per layer: the counts the shrink check used, and the new ones (recorded for the next update).
  const layers: LayerCounts[] = candidate.sources.map((s, i) => {
    const r = check.sources.find((x) => x.id === s.id)!;
    raw.sources[i]!['counts'] = { rows: r.rowsRead, features: r.rowsLoaded };
    return {
      sourceId: s.id,
      file: s.file,
      rows: { before: s.counts?.rows ?? null, after: r.rowsRead },
      features: { before: s.counts?.features ?? null, after: r.rowsLoaded },
    };
  });
  const shrank = check.verdict.refusals.filter((r) => r.shrink);
  const manifestText = JSON.stringify(raw, null, 2) + '\n';
  const changes: ChangeLog = {
    vintage,
    files,
    layers,
    ...(formatChanges.length ? { formatChanges } : {}),
    ...(shrank.length && opts.acceptShrink ? { acceptedShrink: { reason: opts.acceptShrink, problems: shrank.map((r) => r.problem) } } : {}),
    renamedColumns,
    missingColumns,
    lots,
    addresses,
    districts,
  };
  return {
    slug,
    placeId,
    entries,
    unchanged: files.length === 0,
    changes,
    manifest: parseManifest(manifestText, `the updated manifest of ${slug}`),
    manifestText,
    check,
  };
}

/**
 * The counts the shrink check compares against: the manifest's (data init records them), else the
 * last import's tally of each layer, so a place drafted before counts were recorded is guarded too.
 */
async function recordedCounts(ctx: AppContext, m: Manifest, raw: RawManifest): Promise<void> {
  if (m.sources.every((s) => s.counts)) return;
  const r = await ctx.db.query<{ report: { sources?: { id: string; rowsRead: number; rowsLoaded: number }[] } | null }>(
    'SELECT import_report AS report FROM places WHERE place_id = $1',
    [m.geoDivisionId],
  );
  const last = new Map((r[0]?.report?.sources ?? []).map((x) => [x.id, x]));
  m.sources.forEach((s, i) => {
    const l = last.get(s.id);
    if (!s.counts && l) raw.sources[i]!['counts'] = { rows: l.rowsRead, features: l.rowsLoaded };
  });
}

/** A changed CSV read as data init reads it: a republished file with another delimiter is followed (reported), not misread as one column. */
function followCsvFormat(m: Manifest, placeRoot: string, raw: RawManifest, changedSources: Set<string>): NonNullable<ChangeLog['formatChanges']> {
  const out: NonNullable<ChangeLog['formatChanges']> = [];
  m.sources.forEach((s, i) => {
    if (s.format !== 'csv' || !changedSources.has(s.id) || /\.tsv$/i.test(s.file)) return;
    const head = decodeText(readHead(path.join(placeRoot, s.file)), s.encoding);
    const now = guessDelimiter(head);
    // Followed only when the manifest's delimiter no longer splits the first line at all (a town that
    // switched to semicolons): a file it still reads is left as the manifest says.
    const first = head.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
    if (now === s.csv.delimiter || first.split(s.csv.delimiter).length > 1 || first.split(now).length < 2) return;
    out.push({ sourceId: s.id, file: s.file, setting: 'csv.delimiter', from: s.csv.delimiter, to: now });
    raw.sources[i]!['csv'] = { ...((raw.sources[i]!['csv'] as object | undefined) ?? {}), delimiter: now };
  });
  return out;
}

/** The first 64 KiB of a file (enough lines to tell a delimiter). */
function readHead(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(65536);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** Which files changed (sha256): the raw manifest takes their new checksums, and each changed source the update's vintage. */
async function changedFiles(
  m: Manifest,
  placeRoot: string,
  raw: RawManifest,
  vintage: string,
): Promise<{ files: ChangeLog['files']; changedSources: Set<string> }> {
  const files: ChangeLog['files'] = [];
  const changedSources = new Set<string>();
  for (const [i, s] of m.sources.entries()) {
    for (const f of sourceFiles(s)) {
      const abs = path.join(placeRoot, f.file);
      if (!fs.existsSync(abs)) throw new SitelineError('bad_input', `${m.slug}: ${f.file} is missing from ${placeRoot}; nothing was changed.`);
      const now = await sha256File(abs);
      if (now === f.sha256) continue;
      files.push({ sourceId: s.id, file: f.file, before: f.sha256, after: now });
      changedSources.add(s.id);
      const rs = raw.sources[i]!;
      if (f.file === s.file) rs['sha256'] = now;
      else for (const k of ['dbf', 'prj', 'shx']) if ((rs[k] as { file?: string } | undefined)?.file === f.file) (rs[k] as { sha256: string }).sha256 = now;
    }
    if (changedSources.has(s.id)) raw.sources[i]!['vintage'] = vintage;
  }

  return { files, changedSources };
}

/** Columns a new file renamed: a mapped column that is gone, and a new column holding its values (followed in the raw manifest); else missing. */
async function followRenamedColumns(
  ctx: AppContext,
  m: Manifest,
  placeRoot: string,
  raw: RawManifest,
  changedSources: Set<string>,
  prev: Awaited<ReturnType<typeof lastVintage>>,
): Promise<Pick<ChangeLog, 'renamedColumns' | 'missingColumns'>> {
  const placeId = m.geoDivisionId;
  const renamedColumns: RenamedColumn[] = [];
  const missingColumns: ChangeLog['missingColumns'] = [];
  const dbValues = async (s: ManifestSource, setting: string): Promise<Set<string> | null> => {
    if (s.load.target === 'zones' && setting === 'load.code.field')
      return new Set((await ctx.db.query<{ code: string }>('SELECT DISTINCT code FROM zones WHERE place_id = $1', [placeId])).map((r) => r.code));
    if (s.load.target === 'zones' && setting === 'load.nameField')
      return new Set(
        (await ctx.db.query<{ name: string }>('SELECT DISTINCT name FROM zones WHERE place_id = $1 AND name IS NOT NULL', [placeId])).map((r) => r.name),
      );
    if (setting.endsWith('idField') || setting === 'load.fields.parcelId')
      return new Set((await ctx.db.query<{ id: string }>('SELECT parcel_ext_id AS id FROM parcels WHERE place_id = $1', [placeId])).map((r) => r.id));
    return null;
  };
  for (const [i, s] of m.sources.entries()) {
    if (!changedSources.has(s.id)) continue;
    let data: Awaited<ReturnType<typeof readSource>>;
    try {
      data = await readSource(placeRoot, s);
    } catch (err) {
      throw new SitelineError('bad_input', `${m.slug}: cannot read ${s.file} (${s.id}): ${(err as Error).message}; nothing was changed.`);
    }
    const count = data.kind === 'rows' ? data.rows.filter((r) => !r.problem).length : data.kind === 'features' ? data.features.length : data.parcels.length;
    // An empty file is "no features", not a missing column for every setting.
    if (count === 0)
      throw new SitelineError(
        'bad_input',
        `${m.slug}: ${s.file} (${s.id}) has no features (0 ${data.kind === 'rows' ? 'rows' : 'features'} read); nothing was changed.`,
      );
    const now = sourceColumns(data);
    const before = prev?.columns[s.id];
    const values = (c: string): string[] =>
      data.kind === 'rows'
        ? data.rows.slice(0, 5000).map((r) => String(r.values[c] ?? '').trim())
        : data.kind === 'features'
          ? data.features.slice(0, 5000).map((f) => String(f.properties[c] ?? '').trim())
          : [];
    // A personal column (owners' names, by header or by values) is never followed nor quoted as evidence.
    const fresh = now.filter((c) => !(before ?? []).includes(c) && !mappedColumns(s).some(([, col]) => col === c) && !isPersonalColumn(c, values(c)));
    for (const [setting, col] of mappedColumns(s)) {
      if (now.includes(col)) continue;
      const known = await dbValues(s, setting);
      let best: { to: string; evidence: string; score: number } | undefined;
      for (const c of fresh) {
        const vals = values(c).filter(Boolean);
        if (known?.size) {
          const hit = vals.filter((v) => known.has(v)).length;
          const score = vals.length ? hit / vals.length : 0;
          if (score >= 0.5 && (!best || score > best.score))
            best = {
              to: c,
              score,
              evidence: `${share(hit, vals.length)} of its values are the old column's values as loaded (e.g. ${[...new Set(vals)].slice(0, 3).join(', ')})`,
            };
        } else if (fresh.length === 1 && before) {
          best = { to: c, score: 1, evidence: `the only new column of ${s.file} since the last import (e.g. ${[...new Set(vals)].slice(0, 3).join(', ')})` };
        }
      }
      if (best) {
        renamedColumns.push({ sourceId: s.id, file: s.file, setting, from: col, to: best.to, evidence: best.evidence });
        setAt(raw.sources[i]!, setting, best.to);
      } else missingColumns.push({ sourceId: s.id, file: s.file, setting, column: col });
    }
  }

  return { renamedColumns, missingColumns };
}

/** What changes against the live import: lots, their zone (a point inside each lot, both sides), their area, districts. */
async function changesAgainstLive(
  ctx: AppContext,
  placeId: string,
  rows: Awaited<ReturnType<typeof checkManifestJoins>>['rows'],
  candidate: Manifest,
  placesDir: string,
  prev: Awaited<ReturnType<typeof lastVintage>>,
): Promise<Pick<ChangeLog, 'lots' | 'districts'> & { addresses: NonNullable<ChangeLog['addresses']>; entries: ChangeEntry[] }> {
  const oldLots = await ctx.db.query<{ id: string; lon: number; lat: number; area: number; geom: MultiPolygonCoords }>(
    'SELECT parcel_ext_id AS id, inside_lon AS lon, inside_lat AS lat, area_m2 AS area, geom FROM parcels WHERE place_id = $1',
    [placeId],
  );
  const oldZones = await ctx.db.query<{ zone_id: string; code: string; geom: MultiPolygonCoords }>(
    `SELECT zone_id, code, geom FROM zones WHERE place_id = $1 AND layer = 'base'`,
    [placeId],
  );
  const oldIndex = new LotIndex(oldZones.map((z) => ({ id: z.zone_id, geom: z.geom, bbox: bboxOf(z.geom) })));
  const oldCode = new Map(oldZones.map((z) => [z.zone_id, z.code]));
  const newBase = rows.zones.filter((z) => z.layer === 'base');
  const newIndex = new LotIndex(newBase.map((z) => ({ id: z.zoneId, geom: z.geom, bbox: z.bbox })));
  const newCode = new Map(newBase.map((z) => [z.zoneId, z.code]));
  const zoneAt = (index: LotIndex, codes: Map<string, string>, p: [number, number]) => {
    const ids = index.lotsAt(p);
    return ids.length ? [...new Set(ids.map((id) => codes.get(id)!))].sort().join(' / ') : null;
  };
  const oldById = new Map(oldLots.map((l) => [l.id, l]));
  const added: string[] = [];
  const zoneChanged: ChangeLog['lots']['zoneChanged']['examples'] = [];
  const areaChanged: ChangeLog['lots']['areaChanged']['examples'] = [];
  for (const p of [...rows.parcels.values()].sort((a, b) => (a.parcelExtId < b.parcelExtId ? -1 : 1))) {
    const o = oldById.get(p.parcelExtId);
    if (!o) {
      added.push(p.parcelExtId);
      continue;
    }
    const from = zoneAt(oldIndex, oldCode, [o.lon, o.lat]);
    const to = zoneAt(newIndex, newCode, [p.insideLon, p.insideLat]);
    if (from !== to) zoneChanged.push({ lot: p.parcelExtId, from, to });
    if (Math.abs(p.areaM2 - o.area) > Math.max(1, o.area * 0.01))
      areaChanged.push({ lot: p.parcelExtId, fromM2: Math.round(o.area), toM2: Math.round(p.areaM2) });
  }
  const removed = oldLots
    .map((l) => l.id)
    .filter((id) => !rows.parcels.has(id))
    .sort();
  const oldDistricts = new Set(oldZones.map((z) => z.code));
  const newDistricts = new Set(newBase.map((z) => z.code));
  const rulesNow = rulesDigests(candidate, placesDir);
  const rulesChanged = prev ? [...new Set([...Object.keys(rulesNow), ...Object.keys(prev.rules)])].filter((c) => rulesNow[c] !== prev.rules[c]).sort() : [];
  const ex = <T>(xs: T[]) => ({ count: xs.length, examples: xs.slice(0, EXAMPLES) });
  const { split, merged } = splitsAndMerges(oldLots, rows, added, removed);
  const addressDiff = await addressChanges(ctx, placeId, rows);
  const entries: ChangeEntry[] = [
    ...zoneChanged.map((z) => ({ kind: 'lot_rezoned' as const, subject: z.lot, detail: { from: z.from, to: z.to } })),
    ...added.map((id) => ({ kind: 'lot_added' as const, subject: id, detail: {} })),
    ...removed.map((id) => ({ kind: 'lot_removed' as const, subject: id, detail: {} })),
    ...split.map((x) => ({ kind: 'lot_split' as const, subject: x.from, detail: { into: x.to } })),
    ...merged.map((x) => ({ kind: 'lot_merged' as const, subject: x.to, detail: { from: x.from } })),
    ...areaChanged.map((a) => ({ kind: 'lot_area_changed' as const, subject: a.lot, detail: { fromM2: a.fromM2, toM2: a.toM2 } })),
    ...addressDiff.added.map((k) => ({ kind: 'address_added' as const, subject: k, detail: {} })),
    ...addressDiff.removed.map((k) => ({ kind: 'address_removed' as const, subject: k, detail: {} })),
  ];
  return {
    entries,
    lots: {
      before: oldLots.length,
      after: rows.parcels.size,
      added: ex(added),
      removed: ex(removed),
      zoneChanged: ex(zoneChanged),
      areaChanged: ex(areaChanged),
      split: ex(split),
      merged: ex(merged),
    },
    addresses: { before: addressDiff.before, after: addressDiff.after, added: ex(addressDiff.added), removed: ex(addressDiff.removed) },
    districts: {
      added: [...newDistricts].filter((c) => !oldDistricts.has(c)).sort(),
      removed: [...oldDistricts].filter((c) => !newDistricts.has(c)).sort(),
      rulesChanged,
      ...(prev ? {} : { rulesNote: 'no earlier import recorded its rules: rule changes are listed from the next update on' }),
    },
  };
}

/** Splits (a removed lot's ground holds two or more added lots' inside points) and merges (an added lot holds two or more removed lots' inside points). */
function splitsAndMerges(
  oldLots: { id: string; lon: number; lat: number; geom: MultiPolygonCoords }[],
  rows: Awaited<ReturnType<typeof checkManifestJoins>>['rows'],
  added: string[],
  removed: string[],
): { split: { from: string; to: string[] }[]; merged: { from: string[]; to: string }[] } {
  const gone = new Set(removed);
  const goneLots = oldLots.filter((l) => gone.has(l.id));
  const goneIndex = new LotIndex(goneLots.map((l) => ({ id: l.id, geom: l.geom, bbox: bboxOf(l.geom) })));
  const newLots = added.map((id) => rows.parcels.get(id)!);
  const newIndex = new LotIndex(newLots.map((p) => ({ id: p.parcelExtId, geom: p.geom, bbox: p.bbox })));
  const into = new Map<string, string[]>();
  for (const p of newLots) for (const o of goneIndex.lotsAt([p.insideLon, p.insideLat])) into.set(o, [...(into.get(o) ?? []), p.parcelExtId]);
  const from = new Map<string, string[]>();
  for (const l of goneLots) for (const n of newIndex.lotsAt([l.lon, l.lat])) from.set(n, [...(from.get(n) ?? []), l.id]);
  const split = [...into]
    .filter(([, to]) => to.length >= 2)
    .map(([o, to]) => ({ from: o, to: to.sort() }))
    .sort((a, b) => (a.from < b.from ? -1 : 1));
  const merged = [...from]
    .filter(([, fs]) => fs.length >= 2)
    .map(([n, fs]) => ({ from: fs.sort(), to: n }))
    .sort((a, b) => (a.to < b.to ? -1 : 1));
  return { split, merged };
}

/** An address as a key: number, suffix, street and unit (the row number and id may change between vintages). */
const addressKey = (a: { number: number; suffix: string; street: string; unit: string }) => `${a.number}${a.suffix} ${a.street}${a.unit ? ` #${a.unit}` : ''}`;

/** Addresses added and removed against the live import, by number, street and unit. */
async function addressChanges(
  ctx: AppContext,
  placeId: string,
  rows: Awaited<ReturnType<typeof checkManifestJoins>>['rows'],
): Promise<{ before: number; after: number; added: string[]; removed: string[] }> {
  const old = await ctx.db.query<{ number: number; suffix: string; street: string; unit: string; full: string }>(
    'SELECT number, number_suffix AS suffix, street_display AS street, unit, full_address AS "full" FROM addresses WHERE place_id = $1',
    [placeId],
  );
  const oldKeys = new Map(old.map((a) => [addressKey(a), a.full]));
  const newKeys = new Map(
    rows.addresses.map((a) => [addressKey({ number: a.number, suffix: a.numberSuffix, street: a.streetDisplay, unit: a.unit }), a.fullAddress]),
  );
  const added = [...newKeys.keys()].filter((k) => !oldKeys.has(k)).sort();
  const removed = [...oldKeys.keys()].filter((k) => !newKeys.has(k)).sort();
  return { before: old.length, after: rows.addresses.length, added, removed };
}

/** A change log as lines for a terminal (data update, and the coverage page's text). */
export function formatChangeLog(c: ChangeLog): string[] {
  const L: string[] = [];
  L.push(`  changed files (${c.files.length}):`);
  for (const f of c.files) L.push(`    ${f.file} (${f.sourceId}): sha256 ${f.before.slice(0, 12)}... -> ${f.after.slice(0, 12)}...`);
  for (const r of c.renamedColumns) L.push(`  renamed column: ${r.file}: ${r.from} -> ${r.to} (${r.evidence}); the manifest's ${r.setting} follows it`);
  for (const r of c.missingColumns)
    L.push(`  MISSING column: ${r.file} has no column ${r.column} (the manifest's ${r.setting}) and no new column holds its values`);
  for (const f of c.formatChanges ?? [])
    L.push(
      `  format changed: ${f.file}: ${f.setting} ${JSON.stringify(f.from)} -> ${JSON.stringify(f.to)} (read as data init reads it); the manifest follows it`,
    );
  if (c.layers?.length) {
    L.push('  per layer (rows read, features loaded; before = the counts recorded in the manifest or the last import):');
    const n = (v: number | null) => (v === null ? '?' : String(v));
    for (const x of c.layers)
      L.push(`    ${x.sourceId.padEnd(12)} rows ${n(x.rows.before)} -> ${x.rows.after}, features ${n(x.features.before)} -> ${x.features.after}  (${x.file})`);
  }
  if (c.addresses)
    L.push(
      `  addresses: ${c.addresses.before} before, ${c.addresses.after} after; ${c.addresses.added.count} added${c.addresses.added.count ? ` (e.g. ${c.addresses.added.examples.slice(0, 5).join(', ')})` : ''}, ${c.addresses.removed.count} removed${c.addresses.removed.count ? ` (e.g. ${c.addresses.removed.examples.slice(0, 5).join(', ')})` : ''}`,
    );
  if (c.acceptedShrink)
    L.push(`  ACCEPTED a shrunk layer (--accept-shrink ${JSON.stringify(c.acceptedShrink.reason)}): ${c.acceptedShrink.problems.join('; ')}`);
  const l = c.lots;
  L.push(
    `  lots: ${l.before} before, ${l.after} after; ${l.added.count} added${l.added.count ? ` (e.g. ${l.added.examples.slice(0, 5).join(', ')})` : ''}, ${l.removed.count} removed${l.removed.count ? ` (e.g. ${l.removed.examples.slice(0, 5).join(', ')})` : ''}`,
  );
  L.push(
    `  lots whose zone changed: ${l.zoneChanged.count}${
      l.zoneChanged.count
        ? ` (e.g. ${l.zoneChanged.examples
            .slice(0, 5)
            .map((z) => `${z.lot}: ${z.from ?? 'none'} -> ${z.to ?? 'none'}`)
            .join('; ')})`
        : ''
    }`,
  );
  if (l.split)
    L.push(
      `  lots split: ${l.split.count}${
        l.split.count
          ? ` (e.g. ${l.split.examples
              .slice(0, 5)
              .map((x) => `${x.from} -> ${x.to.join(' + ')}`)
              .join('; ')})`
          : ''
      }`,
    );
  if (l.merged)
    L.push(
      `  lots merged: ${l.merged.count}${
        l.merged.count
          ? ` (e.g. ${l.merged.examples
              .slice(0, 5)
              .map((x) => `${x.from.join(' + ')} -> ${x.to}`)
              .join('; ')})`
          : ''
      }`,
    );
  L.push(
    `  lots whose area changed: ${l.areaChanged.count}${
      l.areaChanged.count
        ? ` (e.g. ${l.areaChanged.examples
            .slice(0, 5)
            .map((a) => `${a.lot}: ${a.fromM2} -> ${a.toM2} m2`)
            .join('; ')})`
        : ''
    }`,
  );
  const d = c.districts;
  L.push(
    `  districts: added ${d.added.join(', ') || 'none'}; removed ${d.removed.join(', ') || 'none'}; rules changed ${d.rulesChanged.join(', ') || 'none'}${d.rulesNote ? ` (${d.rulesNote})` : ''}`,
  );
  return L;
}

export interface VintageRecord {
  vintageId: number;
  importedAt: string;
  layers: { id: string; name: string; file: string; sha256: string; vintage: string }[];
  changes: ChangeLog | null;
}

/** Every vintage of a place, newest first (the change log per import). */
export async function listVintages(ctx: Pick<AppContext, 'db'>, placeId: string): Promise<VintageRecord[]> {
  const r = await ctx.db.query<{ vintage_id: number; imported_at: unknown; layers: VintageRecord['layers']; changes: ChangeLog | null }>(
    'SELECT vintage_id, imported_at, layers, changes FROM place_vintages WHERE place_id = $1 ORDER BY vintage_id DESC',
    [placeId],
  );
  return r.map((v) => ({
    vintageId: Number(v.vintage_id),
    importedAt: v.imported_at instanceof Date ? v.imported_at.toISOString() : new Date(String(v.imported_at)).toISOString(),
    layers: v.layers,
    changes: v.changes,
  }));
}

/** Which date changesSince reads: the town's date for the files (the vintage) or the day we imported them. */
export type ChangesBy = 'vintage' | 'import';

/** A vintage's town date: its change log's vintage (data update), else the latest vintage of its layers (a first import). */
export function townVintageOf(v: VintageRecord): string {
  return (
    v.changes?.vintage ??
    v.layers
      .map((l) => l.vintage)
      .sort()
      .at(-1) ??
    v.importedAt.slice(0, 10)
  );
}

/** The imports of a place since a date (YYYY-MM-DD), by the town's vintage date or by our import date, newest first. */
export async function vintagesSince(ctx: Pick<AppContext, 'db'>, placeId: string, since: string, by: ChangesBy = 'import'): Promise<VintageRecord[]> {
  return (await listVintages(ctx, placeId)).filter((v) => (by === 'vintage' ? townVintageOf(v) : v.importedAt.slice(0, 10)) >= since);
}

export interface ChangeItem extends ChangeEntry {
  vintageId: number;
  /** The town's date for the files that made the change. */
  vintage: string;
  importedAt: string;
}

/** Every lot and address change since a date (by the town's vintage or our import date), newest import first, a page at a time. */
export async function changeItemsSince(
  ctx: Pick<AppContext, 'db'>,
  placeId: string,
  opts: { since: string; by?: ChangesBy; page?: number; pageSize?: number },
): Promise<{ total: number; page: number; pageSize: number; items: ChangeItem[] }> {
  const page = Math.max(1, opts.page ?? 1);
  const pageSize = Math.min(1000, Math.max(1, opts.pageSize ?? 100));
  // Town vintages are ISO dates as written; ours a timestamp compared from the day's start.
  const where = opts.by === 'vintage' ? 'place_id = $1 AND town_vintage >= $2' : 'place_id = $1 AND imported_at >= $2::date';
  const total = Number(
    (await ctx.db.query<{ n: number | string }>(`SELECT count(*) AS n FROM place_changes WHERE ${where}`, [placeId, opts.since]))[0]?.n ?? 0,
  );
  const rows = await ctx.db.query<{
    vintage_id: number;
    seq: number;
    kind: ChangeEntry['kind'];
    subject: string;
    detail: Record<string, unknown>;
    town_vintage: string;
    imported_at: unknown;
  }>(
    `SELECT vintage_id, seq, kind, subject, detail, town_vintage, imported_at FROM place_changes WHERE ${where} ORDER BY vintage_id DESC, seq LIMIT $3 OFFSET $4`,
    [placeId, opts.since, pageSize, (page - 1) * pageSize],
  );
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
  return {
    total,
    page,
    pageSize,
    items: rows.map((r) => ({
      vintageId: Number(r.vintage_id),
      vintage: r.town_vintage,
      importedAt: iso(r.imported_at),
      kind: r.kind,
      subject: r.subject,
      detail: r.detail,
    })),
  };
}
