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

export interface ChangeLog {
  /** The vintage the new import is recorded as (the --vintage given, else the date of the update). */
  vintage: string;
  files: { sourceId: string; file: string; before: string; after: string }[];
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
  };
  districts: { added: string[]; removed: string[]; rulesChanged: string[]; rulesNote?: string };
}

export interface UpdatePlan {
  slug: string;
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
    if (typeof v === 'string' && /(^|\.)(field|idField|nameField|codeField|descriptionField|locationField|overlayTagField)$|^load\.fields\.[a-zA-Z]+$/.test(p)) out.push([p, v]);
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
  const r = await ctx.db.query<{ columns: Record<string, string[]>; rules_digests: Record<string, string> }>('SELECT columns, rules_digests FROM place_vintages WHERE place_id = $1 ORDER BY vintage_id DESC LIMIT 1', [placeId]);
  return r[0] ? { columns: r[0].columns ?? {}, rules: r[0].rules_digests ?? {} } : null;
}

type RawManifest = { sources: Record<string, unknown>[] };

/**
 * Plans an update (see the file comment); writes nothing. Four steps: which files changed (new
 * checksums and vintages in the raw manifest); which mapped columns a new file renamed (followed) or
 * lost; the one gate on the candidate manifest; what changes against the live import.
 */
export async function planUpdate(ctx: AppContext, slug: string, opts: { sourceDir?: string; placesDir?: string; vintage?: string } = {}): Promise<UpdatePlan> {
  const placesDir = opts.placesDir ?? ctx.config.placesDir;
  const m = loadManifest(slug, placesDir);
  const sourceDir = opts.sourceDir ?? ctx.config.sourceDir;
  const { placeRoot } = placeRootFor(sourceDir, m);
  const vintage = opts.vintage ?? ctx.clock.now().toISOString().slice(0, 10);
  const raw = JSON.parse(fs.readFileSync(manifestPath(slug, placesDir), 'utf8')) as RawManifest;
  const placeId = m.geoDivisionId;

  const { files, changedSources } = await changedFiles(m, placeRoot, raw, vintage);
  const prev = await lastVintage(ctx, placeId);
  const { renamedColumns, missingColumns } = await followRenamedColumns(ctx, m, placeRoot, raw, changedSources, prev);
  const manifestText = JSON.stringify(raw, null, 2) + '\n';
  const candidate = parseManifest(manifestText, `the updated manifest of ${slug}`);
  const { check, rows } = await checkManifestJoins(candidate, { sourceDir, placesDir });
  const { lots, districts } = await changesAgainstLive(ctx, placeId, rows, candidate, placesDir, prev);
  const changes: ChangeLog = { vintage, files, renamedColumns, missingColumns, lots, districts };
  return { slug, placeId, unchanged: files.length === 0, changes, manifest: candidate, manifestText, check };
}

/** Which files changed (sha256): the raw manifest takes their new checksums, and each changed source the update's vintage. */
async function changedFiles(m: Manifest, placeRoot: string, raw: RawManifest, vintage: string): Promise<{ files: ChangeLog['files']; changedSources: Set<string> }> {
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
    if (s.load.target === 'zones' && setting === 'load.code.field') return new Set((await ctx.db.query<{ code: string }>('SELECT DISTINCT code FROM zones WHERE place_id = $1', [placeId])).map((r) => r.code));
    if (s.load.target === 'zones' && setting === 'load.nameField') return new Set((await ctx.db.query<{ name: string }>('SELECT DISTINCT name FROM zones WHERE place_id = $1 AND name IS NOT NULL', [placeId])).map((r) => r.name));
    if (setting.endsWith('idField') || setting === 'load.fields.parcelId') return new Set((await ctx.db.query<{ id: string }>('SELECT parcel_ext_id AS id FROM parcels WHERE place_id = $1', [placeId])).map((r) => r.id));
    return null;
  };
  for (const [i, s] of m.sources.entries()) {
    if (!changedSources.has(s.id)) continue;
    const data = await readSource(placeRoot, s);
    const now = sourceColumns(data);
    const before = prev?.columns[s.id];
    const fresh = now.filter((c) => !(before ?? []).includes(c) && !mappedColumns(s).some(([, col]) => col === c));
    for (const [setting, col] of mappedColumns(s)) {
      if (now.includes(col)) continue;
      const values = (c: string): string[] =>
        data.kind === 'rows' ? data.rows.slice(0, 5000).map((r) => String(r.values[c] ?? '').trim()) : data.kind === 'features' ? data.features.slice(0, 5000).map((f) => String(f.properties[c] ?? '').trim()) : [];
      const known = await dbValues(s, setting);
      let best: { to: string; evidence: string; score: number } | undefined;
      for (const c of fresh) {
        const vals = values(c).filter(Boolean);
        if (known?.size) {
          const hit = vals.filter((v) => known.has(v)).length;
          const score = vals.length ? hit / vals.length : 0;
          if (score >= 0.5 && (!best || score > best.score)) best = { to: c, score, evidence: `${share(hit, vals.length)} of its values are the old column's values as loaded (e.g. ${[...new Set(vals)].slice(0, 3).join(', ')})` };
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
): Promise<Pick<ChangeLog, 'lots' | 'districts'>> {
  const oldLots = await ctx.db.query<{ id: string; lon: number; lat: number; area: number }>('SELECT parcel_ext_id AS id, inside_lon AS lon, inside_lat AS lat, area_m2 AS area FROM parcels WHERE place_id = $1', [placeId]);
  const oldZones = await ctx.db.query<{ zone_id: string; code: string; geom: MultiPolygonCoords }>(`SELECT zone_id, code, geom FROM zones WHERE place_id = $1 AND layer = 'base'`, [placeId]);
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
    if (Math.abs(p.areaM2 - o.area) > Math.max(1, o.area * 0.01)) areaChanged.push({ lot: p.parcelExtId, fromM2: Math.round(o.area), toM2: Math.round(p.areaM2) });
  }
  const removed = oldLots.map((l) => l.id).filter((id) => !rows.parcels.has(id)).sort();
  const oldDistricts = new Set(oldZones.map((z) => z.code));
  const newDistricts = new Set(newBase.map((z) => z.code));
  const rulesNow = rulesDigests(candidate, placesDir);
  const rulesChanged = prev ? [...new Set([...Object.keys(rulesNow), ...Object.keys(prev.rules)])].filter((c) => rulesNow[c] !== prev.rules[c]).sort() : [];
  const ex = <T>(xs: T[]) => ({ count: xs.length, examples: xs.slice(0, EXAMPLES) });
  return {
    lots: { before: oldLots.length, after: rows.parcels.size, added: ex(added), removed: ex(removed), zoneChanged: ex(zoneChanged), areaChanged: ex(areaChanged) },
    districts: {
      added: [...newDistricts].filter((c) => !oldDistricts.has(c)).sort(),
      removed: [...oldDistricts].filter((c) => !newDistricts.has(c)).sort(),
      rulesChanged,
      ...(prev ? {} : { rulesNote: 'no earlier import recorded its rules: rule changes are listed from the next update on' }),
    },
  };
}

/** A change log as lines for a terminal (data update, and the coverage page's text). */
export function formatChangeLog(c: ChangeLog): string[] {
  const L: string[] = [];
  L.push(`  changed files (${c.files.length}):`);
  for (const f of c.files) L.push(`    ${f.file} (${f.sourceId}): sha256 ${f.before.slice(0, 12)}... -> ${f.after.slice(0, 12)}...`);
  for (const r of c.renamedColumns) L.push(`  renamed column: ${r.file}: ${r.from} -> ${r.to} (${r.evidence}); the manifest's ${r.setting} follows it`);
  for (const r of c.missingColumns) L.push(`  MISSING column: ${r.file} has no column ${r.column} (the manifest's ${r.setting}) and no new column holds its values`);
  const l = c.lots;
  L.push(`  lots: ${l.before} before, ${l.after} after; ${l.added.count} added${l.added.count ? ` (e.g. ${l.added.examples.slice(0, 5).join(', ')})` : ''}, ${l.removed.count} removed${l.removed.count ? ` (e.g. ${l.removed.examples.slice(0, 5).join(', ')})` : ''}`);
  L.push(`  lots whose zone changed: ${l.zoneChanged.count}${l.zoneChanged.count ? ` (e.g. ${l.zoneChanged.examples.slice(0, 5).map((z) => `${z.lot}: ${z.from ?? 'none'} -> ${z.to ?? 'none'}`).join('; ')})` : ''}`);
  L.push(`  lots whose area changed: ${l.areaChanged.count}${l.areaChanged.count ? ` (e.g. ${l.areaChanged.examples.slice(0, 5).map((a) => `${a.lot}: ${a.fromM2} -> ${a.toM2} m2`).join('; ')})` : ''}`);
  const d = c.districts;
  L.push(`  districts: added ${d.added.join(', ') || 'none'}; removed ${d.removed.join(', ') || 'none'}; rules changed ${d.rulesChanged.join(', ') || 'none'}${d.rulesNote ? ` (${d.rulesNote})` : ''}`);
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
  return r.map((v) => ({ vintageId: Number(v.vintage_id), importedAt: v.imported_at instanceof Date ? v.imported_at.toISOString() : new Date(String(v.imported_at)).toISOString(), layers: v.layers, changes: v.changes }));
}
