// A project report: builds a ReportInput from one of the caller's projects (its lots as attached,
// the districts and overlays around them, the latest analysis envelope with statuses and citations,
// the place's sources with vintages and licences, and what is unknown), composes it, and on a
// confirmed request saves the export (spending the meter once per request) and signs its link.
// No HTTP and no MCP here: the tool adapter calls produceProjectReport.
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import type { Sourced, LayerSource } from '../core/snapshot-types.ts';
import { boxLiteral, type BBox, type MultiPolygonCoords } from '../core/geo/primitives.ts';
import { getPlace } from '../places/catalogue.ts';
import { resolveProject, type ProjectList, type ProjectRow, type TargetArgs } from '../projects/project-store.ts';
import { lotsOfProject, type ProjectLot } from '../projects/project-lots.ts';
import { agentStatusOf } from '../analysis/agent-status.ts';
import { latestSucceededRun } from '../analysis/run-queue.ts';
import { STANDARD_KEYS } from '../core/rules-schema.ts';
import { composeReport } from './compose-report.ts';
import { exportRequestKey, saveExport, type ExportUsage } from './export-store.ts';
import { signExportUrl } from './signed-url.ts';
import {
  MAX_REPORT_NEIGHBOURS,
  type ReportArea,
  type ReportAudience,
  type ReportDetail,
  type ReportInput,
  type ReportLot,
  type ReportValue,
} from './report-input.ts';
import type { ReportOutline } from './report-outline.ts';
// The analysis writes its notes for agents, naming standards and statuses by their keys
// ("maxFar: residential", "maxUnitsPerLot is not_extracted"); a report reads them out in words.
import { forPeople, valueLabel } from '../core/value-words.ts';
import { readAnalysisResult } from '../analysis/analysis-result.ts';
import type { NextStep } from '../core/next-step.ts';
import { conditionsSentence } from '../snapshot/stated-district.ts';

/** How far around the lots neighbouring parcels are read (degrees, about 80 m of latitude): the map frame's margin. */
const NEIGHBOUR_PAD_DEG = 0.0007;
/** Districts and overlays drawn around the lots, at most. */
const MAX_REPORT_AREAS = 40;

const DERIVED_KEYS = ['maxFloorAreaSqft', 'maxDwellingUnits', 'buildableFootprintSqft', 'gfaEnvelopeSqft'];

export interface ReportArgs extends TargetArgs {
  audience: ReportAudience;
  detail: ReportDetail;
  request?: string | undefined;
  planName?: string | undefined;
}

/** The report input for a project, read from what the project holds now (no HTTP, no MCP). */
// Long because: the report input assembled field by field, in the order the report's pages read it.
async function buildProjectReportInput(ctx: AppContext, project: ProjectRow, args: ReportArgs): Promise<ReportInput> {
  const lots = await lotsOfProject(ctx.db, project.project_id);
  if (!lots.some((l) => l.role === 'build'))
    throw new SitelineError('bad_input', `Project "${project.name}" has no build lot, so there is nothing to report on; nothing was spent.`, {
      next: { action: 'attach_build_lot', then: 'run_analysis' } satisfies NextStep,
    });
  const run = await latestSucceededRun(ctx.db, project.project_id);
  if (!run?.result)
    throw new SitelineError(
      'bad_input',
      `Project "${project.name}" has no finished feasibility analysis yet, so a report would have no envelope to show; nothing was composed or spent.`,
      { next: { action: 'run_analysis', then: 'produce_report' } satisfies NextStep },
    );
  const analysis = readAnalysisResult(run.result);
  const status = await agentStatusOf(ctx, project.project_id, undefined, lots);

  const reportLots: ReportLot[] = lots.map((l) => ({
    lotId: l.lot.parcelExternalId,
    role: l.role,
    polygons: l.lot.polygon,
    areaSqft: Math.round(l.lot.areaSqft),
    districts: l.lot.districts.filter((d) => d.layer === 'base').map((d) => d.code),
    overlays: l.lot.districts.filter((d) => d.layer === 'overlay').map((d) => d.code),
    ...(l.lot.statedDistrict ? { districtSource: statedSource(l.lot.statedDistrict) } : {}),
  }));

  const envelope: ReportValue[] = [];
  const derived = (analysis.derived ?? {}) as Record<string, Sourced<number | string>>;
  const standards = (analysis.standards ?? {}) as Record<string, Sourced<number | string>>;
  for (const k of DERIVED_KEYS) if (derived[k]) envelope.push({ key: k, label: valueLabel(k), value: sourcedOf(derived[k], ctx.config.baseUrl) });
  // A building type's sum of the side yards (Somerville) beside the side yard; no other place has one.
  for (const k of STANDARD_KEYS.flatMap((k) => (k === 'minSideYardFt' ? [k, 'minSideYardSumFt'] : [k])))
    if (standards[k]) envelope.push({ key: k, label: valueLabel(k), value: sourcedOf(standards[k], ctx.config.baseUrl) });

  const placeIds = [...new Set(lots.map((l) => l.lot.geoDivisionId))].sort();
  const sources: LayerSource[] = [];
  let placeName = '';
  for (const id of placeIds) {
    const place = await getPlace(ctx, id);
    if (!place) continue;
    if (!placeName) placeName = `${place.name}, ${place.region}`;
    for (const l of place.layers)
      sources.push({ layer: l.layer, name: l.name, vintage: l.vintage, licence: l.licence, ...(l.attribution ? { attribution: l.attribution } : {}) });
  }
  if (analysis.place?.bylaw)
    sources.push({
      layer: 'rules',
      name: String(analysis.place.bylaw),
      vintage: String(analysis.place.bylawDate ?? 'not stated'),
      licence: 'siteline rules file (citations per value)',
    });
  // The documents the notes name by id (S1, ...), as the analysis defined them.
  const named = (analysis.place?.sources ?? {}) as Record<string, { name?: unknown; vintage?: unknown; url?: unknown }>;
  for (const [id, d] of Object.entries(named))
    sources.push({
      layer: id,
      name: String(d.name ?? id),
      vintage: String(d.vintage ?? 'not stated'),
      licence: 'not stated (named in the notes)',
      ...(typeof d.url === 'string' ? { url: d.url } : {}),
    });
  for (const l of lots) {
    const name = `Lot ${l.lot.parcelExternalId} as attached (${l.lot.source})`;
    if (sources.length < 50 && !sources.some((s) => s.layer === 'lot' && s.name === name))
      sources.push({ layer: 'lot', name: name.slice(0, 200), vintage: l.lot.vintage, licence: 'see the parcels layer' });
  }

  // Where each build lot's district came from, printed on page 1: the zoning map (its layer, named with
  // its vintage) or the caller's statement (a place without a zoning map).
  const zoningLayer = sources.find((s) => s.layer === 'zoning');
  const fromMap = `from the zoning map${zoningLayer ? ` (${zoningLayer.name}, vintage ${zoningLayer.vintage})` : ''}`;
  for (const l of reportLots) if (!l.districtSource && l.districts.length) l.districtSource = fromMap.slice(0, 300);

  const unknowns: string[] = [];
  unknowns.push(`The analysis shown is the run of ${new Date(run.finished_at!).toISOString().slice(0, 10)} (run ${run.run_id}).`);
  if (status.status === 'current' && status.inputsChanged)
    unknowns.push("The project's lots or the rules changed after this analysis was run, so it may be out of date: run the analysis again for a current one.");
  else if (status.status !== 'current')
    unknowns.push(`A newer analysis run is ${status.status}${status.error ? ` (${status.error})` : ''}; this report shows the last finished one.`);
  for (const n of (analysis.notes ?? []) as string[]) if (typeof n === 'string' && unknowns.length < 90) unknowns.push(forPeople(n).slice(0, 500));
  if (!project.address) unknowns.push('The project has no street address on record.');

  return {
    project: {
      name: project.name,
      address: project.address ?? 'no address on record',
      place: placeName || 'not catalogued',
      ...(project.place_id ? { geoDivisionId: project.place_id } : {}),
    },
    audience: args.audience,
    detail: args.detail,
    request: args.request ?? null,
    planName: args.planName ?? null,
    lots: reportLots,
    areas: await areasAround(ctx, lots),
    neighbours: await neighboursAround(ctx, lots),
    streets: await streetsAround(ctx, lots),
    envelope,
    sources: sources.slice(0, 50).map(clipSource),
    unknowns,
    generatedAt: ctx.clock.now().toISOString(),
  };
}

/** Source texts clipped to what the report input allows (a long vintage note is cut, never refused). */
function clipSource(s: LayerSource): LayerSource {
  const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
  return { ...s, layer: cut(s.layer, 60), name: cut(s.name, 200), vintage: cut(s.vintage, 60), licence: cut(s.licence, 200) };
}

/** A value as the report prints it; the quote's page is an absolute link, since paper has no origin. */
/** Where a stated district came from, with the building type and the conditions stated with it. */
function statedSource(d: NonNullable<ProjectLot['lot']['statedDistrict']>): string {
  const type = d.buildingType ? `building type ${d.buildingType}, ` : '';
  return `${type}${d.statement}${d.conditions?.length ? `; ${conditionsSentence(d.conditions).replace(/\.$/, '')}` : ''}`;
}

function sourcedOf(v: Sourced<number | string>, baseUrl: string): Sourced<number | string> {
  const out: Sourced<number | string> = { value: v.value ?? null, status: v.status };
  if (v.unit) out.unit = v.unit;
  if (v.citation) out.citation = { ...v.citation, href: new URL(v.citation.href, baseUrl).toString() };
  if (v.condition) out.condition = forPeople(v.condition);
  if (v.note) out.note = forPeople(v.note);
  if (v.statedNoLimit) out.statedNoLimit = v.statedNoLimit;
  // A derived value names what it is worked out from: without a number it reads "Not calculated" (core/value-words.ts).
  if (v.inputs?.length) out.inputs = [...v.inputs];
  return out;
}

/** The box the report's map covers: the lots' extent padded, with the places they lie in; null without lots. */
function mapArea(lots: ProjectLot[], pad = 0.002): { box: BBox; placeIds: string[] } | null {
  const pts = lots.flatMap((l) => l.lot.polygon.flat(2));
  if (!pts.length) return null;
  const lons = pts.map((p) => p[0]);
  const lats = pts.map((p) => p[1]);
  return {
    box: [Math.min(...lons) - pad, Math.min(...lats) - pad, Math.max(...lons) + pad, Math.max(...lats) + pad],
    placeIds: [...new Set(lots.map((l) => l.lot.geoDivisionId))],
  };
}

/** Street centre lines around the lots, from the place's street layer (none where it has none). */
async function streetsAround(ctx: AppContext, lots: ProjectLot[]): Promise<NonNullable<ReportInput['streets']>> {
  const area = mapArea(lots);
  if (!area) return [];
  const { box, placeIds } = area;
  const rows = await ctx.db.query<{ street_display: string | null; geom: [number, number][] | [number, number][][] | string }>(
    `SELECT street_display, geom FROM street_segments WHERE place_id = ANY($1::text[]) AND bbox && $2::box ORDER BY street_key, segment_id LIMIT 400`,
    [placeIds, boxLiteral(box)],
  );
  return rows
    .map((r) => {
      const g = typeof r.geom === 'string' ? (JSON.parse(r.geom) as [number, number][] | [number, number][][]) : r.geom;
      const lines = (Array.isArray(g[0]?.[0]) ? (g as [number, number][][]) : [g as [number, number][]]).filter((l) => l.length >= 2).slice(0, 50);
      return { name: r.street_display ? r.street_display.slice(0, 200) : null, lines };
    })
    .filter((s) => s.lines.length > 0);
}

/**
 * The parcels around the lots that the project does not hold, as the map's frame shows them (the lots'
 * extent and about 80 m about it), at most MAX_REPORT_NEIGHBOURS, nearest boxes first.
 */
async function neighboursAround(ctx: AppContext, lots: ProjectLot[]): Promise<NonNullable<ReportInput['neighbours']>> {
  const area = mapArea(lots, NEIGHBOUR_PAD_DEG);
  if (!area) return [];
  const { box, placeIds } = area;
  const held = new Set(lots.map((l) => `${l.lot.geoDivisionId}|${l.lot.parcelExternalId}`));
  const centre = `(${(box[0] + box[2]) / 2},${(box[1] + box[3]) / 2})`;
  const rows = await ctx.db.query<{ place_id: string; parcel_ext_id: string; geom: MultiPolygonCoords | string }>(
    `SELECT place_id, parcel_ext_id, geom FROM parcels WHERE place_id = ANY($1::text[]) AND bbox && $2::box
      ORDER BY center(bbox) <-> $3::point, place_id, parcel_ext_id LIMIT $4`,
    [placeIds, boxLiteral(box), centre, MAX_REPORT_NEIGHBOURS + held.size],
  );
  const out: NonNullable<ReportInput['neighbours']> = [];
  for (const r of rows) {
    if (held.has(`${r.place_id}|${r.parcel_ext_id}`) || out.length >= MAX_REPORT_NEIGHBOURS) continue;
    const geom = (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords;
    // Rings of fewer than three points draw nothing (and the report input refuses them).
    const polygons = geom.map((p) => p.filter((ring) => ring.length >= 3)).filter((p) => p.length > 0);
    if (polygons.length) out.push({ lotId: r.parcel_ext_id.slice(0, 100), polygons });
  }
  return out;
}

/** The zoning districts and overlays whose boxes touch the lots (padded), as the map draws them. */
async function areasAround(ctx: AppContext, lots: ProjectLot[]): Promise<ReportArea[]> {
  const area = mapArea(lots);
  if (!area) return [];
  const { box, placeIds } = area;
  const rows = await ctx.db.query<{ code: string; name: string | null; layer: string; geom: MultiPolygonCoords | string }>(
    `SELECT code, name, layer, geom FROM zones WHERE place_id = ANY($1::text[]) AND bbox && $2::box ORDER BY layer, code, zone_id LIMIT $3`,
    [placeIds, boxLiteral(box), MAX_REPORT_AREAS],
  );
  return rows.map((r) => ({
    code: r.code.slice(0, 40),
    name: r.name ? r.name.slice(0, 200) : null,
    kind: r.layer === 'overlay' ? ('overlay' as const) : ('district' as const),
    polygons: (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords,
  }));
}

export type ProjectReportOutcome =
  | { kind: 'list'; list: ProjectList }
  | { kind: 'candidates'; query: string; candidates: { projectId: string; name: string; lifecycleStatus: string }[] }
  | { kind: 'preview'; projectId: string; projectName: string; pageCount: number; outline: ReportOutline; sha256: string }
  | {
      kind: 'exported';
      projectId: string;
      projectName: string;
      exportId: string;
      url: string;
      expiresAt: string;
      pageCount: number;
      byteSize: number;
      duplicate: boolean;
      usage: ExportUsage;
    };

/**
 * produceProjectReport: neither identifier -> the caller's projects (nothing spent); preview -> the
 * outline and page count (nothing spent, no link); confirm -> saved export + signed link, spending
 * one unit unless the same request was saved within its window.
 */
export async function produceProjectReport(
  ctx: AppContext,
  accountId: string,
  args: ReportArgs & { preview: boolean; confirm: boolean },
): Promise<ProjectReportOutcome> {
  const target = await resolveProject(ctx, accountId, args);
  if (target.kind === 'list') return { kind: 'list', list: target.list };
  if (target.kind === 'candidates') return { kind: 'candidates', query: target.query, candidates: target.candidates };
  if (!args.preview && !args.confirm)
    throw new SitelineError(
      'bad_input',
      'preview is false, so confirm must be true: a confirmed export saves the PDF and spends one unit of the records.exports meter. Pass preview=true to see the outline and page count for free, or confirm=true to export.',
      { field: 'confirm' },
    );
  const project = target.project;
  const input = await buildProjectReportInput(ctx, project, args);
  const composed = await composeReport(input);
  if (args.preview)
    return {
      kind: 'preview',
      projectId: project.project_id,
      projectName: project.name,
      pageCount: composed.pageCount,
      outline: composed.outline,
      sha256: composed.sha256,
    };
  const request = exportRequestKey({
    tool: 'produceProjectReport',
    projectId: project.project_id,
    audience: args.audience,
    detail: args.detail,
    request: args.request ?? null,
    planName: args.planName ?? null,
  });
  const saved = await saveExport(ctx, { accountId, request, title: composed.outline.title, report: composed });
  const link = await signExportUrl(ctx, saved.exportId);
  return {
    kind: 'exported',
    projectId: project.project_id,
    projectName: project.name,
    exportId: saved.exportId,
    url: link.url,
    expiresAt: link.expiresAt,
    pageCount: saved.pageCount,
    byteSize: saved.byteSize,
    duplicate: saved.duplicate,
    usage: saved.usage,
  };
}
