// Project map listing (spec "Project map listing"): a listed project shows, to anyone, a pin at its
// build lot's centroid with its name, zone category, typology and lifecycle status — nothing else.
// Listing needs a build lot. A site not already public knowledge (never listed before) is listed only
// after a human confirmed it (the MCP form or the web project page); unlisting removes the pin but
// cannot un-share what was public meanwhile. Every write stores and returns a receipt.
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError } from '../core/errors.ts';
import type { MultiPolygonCoords } from '../core/geo/primitives.ts';
import { zoneCategory, type ZoneCategory } from '../maps/zone-category.ts';
import { lotsOfProject, type ProjectLot } from './project-lots.ts';
import { projectById, resolveProject, summarise, type ProjectList, type ProjectRow, type TargetArgs } from './project-store.ts';
import { insertReceipt, type Receipt } from './receipts.ts';
import type { ProjectTypology } from './project-fields.ts';
import type { NextStep } from '../core/next-step.ts';

/** The listing's typology: the owner's (PROJECT_TYPOLOGIES) when stated, else derived (single_family, multi_family, mixed_use, commercial or unknown). */
export type Typology = ProjectTypology | 'unknown';

export interface Pin {
  lat: number;
  lng: number;
}

/** Exactly what the public map shows of one listed project. */
export interface PublicListing {
  name: string;
  zoneCategory: ZoneCategory;
  typology: Typology;
  lifecycleStatus: string;
  pin: Pin;
}

export interface ListingState {
  listed: boolean;
  listedAt: string | null;
  firstListedAt: string | null;
  unlistedAt: string | null;
  /** The pin while listed (or the last one, after unlisting). */
  pin: Pin | null;
}

export interface ListingArgs extends TargetArgs {
  listed: boolean;
  preview: boolean;
  /** True only when a human confirmed listing (an accepted form, or the web confirmation). */
  confirmedByHuman?: boolean;
  /** The receipt this write reverses (an undo of a listing or an unlisting, undo-change.ts). */
  undoes?: string;
}

export type ListingOutcome =
  | { kind: 'list'; list: ProjectList }
  | { kind: 'candidates'; query: string; candidates: { projectId: string; name: string; lifecycleStatus: string }[] }
  /** Listing a site that is not public knowledge yet: ask the human first; nothing was written. */
  | { kind: 'needs_confirmation'; project: ProjectRow; wouldShow: PublicListing; warnings: string[] }
  | { kind: 'result'; result: Record<string, unknown> };

interface ListingRow {
  project_id: string;
  listed: boolean;
  listed_at: Date | string | null;
  first_listed_at: Date | string;
  unlisted_at: Date | string | null;
  pin_lat: number;
  pin_lng: number;
  zone_category: string;
  typology: string;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

async function listingRow(q: Queryable, projectId: string): Promise<ListingRow | null> {
  const rows = await q.query<ListingRow>(
    'SELECT project_id::text AS project_id, listed, listed_at, first_listed_at, unlisted_at, pin_lat, pin_lng, zone_category, typology FROM project_map_listings WHERE project_id = $1',
    [projectId],
  );
  return rows[0] ?? null;
}

function stateOf(r: ListingRow | null): ListingState {
  if (!r) return { listed: false, listedAt: null, firstListedAt: null, unlistedAt: null, pin: null };
  return {
    listed: r.listed,
    listedAt: iso(r.listed_at),
    firstListedAt: iso(r.first_listed_at),
    unlistedAt: iso(r.unlisted_at),
    pin: { lat: r.pin_lat, lng: r.pin_lng },
  };
}

/** Area-weighted centroid of the build lots' polygons (planar in lon/lat: exact enough at lot scale), to 6 decimals. */
function buildLotCentroid(lots: ProjectLot[]): Pin | null {
  let a = 0;
  let cx = 0;
  let cy = 0;
  // Coordinates relative to a local origin: lon x lat products of raw degrees lose the lot's area to rounding.
  const build = lots.filter((l) => l.role === 'build');
  const first = (build[0]?.lot.polygon as MultiPolygonCoords | undefined)?.[0]?.[0]?.[0];
  if (!first) return null;
  const [ox, oy] = first;
  for (const l of build) {
    for (const poly of l.lot.polygon as MultiPolygonCoords) {
      poly.forEach((ring, i) => {
        const sign = i === 0 ? 1 : -1;
        let ra = 0;
        let rx = 0;
        let ry = 0;
        for (let k = 0; k < ring.length - 1; k++) {
          const x0 = ring[k]![0] - ox,
            y0 = ring[k]![1] - oy;
          const x1 = ring[k + 1]![0] - ox,
            y1 = ring[k + 1]![1] - oy;
          const cross = x0 * y1 - x1 * y0;
          ra += cross;
          rx += (x0 + x1) * cross;
          ry += (y0 + y1) * cross;
        }
        // Orientation-free: each ring counts by its absolute area, holes subtract.
        const s = Math.sign(ra) || 1;
        a += sign * s * ra;
        cx += sign * s * rx;
        cy += sign * s * ry;
      });
    }
  }
  if (a === 0) return null;
  return { lat: round6(oy + cy / (3 * a)), lng: round6(ox + cx / (3 * a)) };
}

/** The build lots' main zone category (largest share of the first build lot's base districts). */
function buildZoneCategory(lots: ProjectLot[]): ZoneCategory {
  const base = lots.filter((l) => l.role === 'build').flatMap((l) => l.lot.districts.filter((d) => d.layer === 'base'));
  const top = [...base].sort((x, y) => y.share - x.share)[0];
  return top ? zoneCategory(top.code, top.name) : 'other';
}

/**
 * Typology (docs/web.md): from the latest succeeded analysis's maximum dwelling units and the zone
 * category — mixed_use / commercial zones name themselves; 1 unit is single_family, 2 or more
 * multi_family; no analysis or no unit count is 'unknown'. Never guessed from the name or address.
 */
async function typologyOf(q: Queryable, projectId: string, category: ZoneCategory): Promise<Typology> {
  if (category === 'mixed_use') return 'mixed_use';
  if (category === 'commercial') return 'commercial';
  const rows = await q.query<{ result: string | null }>(
    `SELECT result FROM analysis_runs WHERE project_id = $1 AND status = 'succeeded' ORDER BY seq DESC LIMIT 1`,
    [projectId],
  );
  const raw = rows[0]?.result;
  if (!raw) return 'unknown';
  // The result is canonical JSON the worker wrote: one that does not parse is damage, and fails here
  // rather than passing as 'unknown'.
  const units = (JSON.parse(raw) as { derived?: { maxDwellingUnits?: { value?: unknown } } }).derived?.maxDwellingUnits?.value;
  if (typeof units !== 'number' || !Number.isFinite(units) || units < 1) return 'unknown';
  return units === 1 ? 'single_family' : 'multi_family';
}

function warningsFor(p: ProjectRow, pin: Pin, alreadyPublic: boolean): string[] {
  const w = [
    `The pin (${pin.lat}, ${pin.lng}) is the build lot's centroid: anyone can find the lot from it, and with it that "${p.name}" is being considered there.`,
    'The project name is shown as written: rename the project first if the name reveals a client, a price or a private plan.',
  ];
  if (!alreadyPublic) w.push('This site has never been listed: once anyone has seen or copied it, unlisting cannot un-share it.');
  return w;
}

async function wouldShow(q: Queryable, p: ProjectRow, lots: ProjectLot[]): Promise<PublicListing | null> {
  const pin = buildLotCentroid(lots);
  if (!pin) return null;
  const category = buildZoneCategory(lots);
  // The owner's typology when stated (issue 49); the derived one only when not.
  const typology = (p.typology as Typology | null) ?? (await typologyOf(q, p.project_id, category));
  return { name: p.name, zoneCategory: category, typology, lifecycleStatus: p.lifecycle_status, pin };
}

function noBuildLot(p: ProjectRow): SitelineError {
  return new SitelineError('bad_input', `"${p.name}" has no build lot, so it has no pin to show (an address alone is never pinned). Nothing was published.`, {
    field: 'projectId',
    projectId: p.project_id,
    next: { action: 'attach_build_lot', then: 'list_on_map' } satisfies NextStep,
  });
}

export async function setProjectMapListing(ctx: AppContext, accountId: string, args: ListingArgs): Promise<ListingOutcome> {
  const target = await resolveProject(ctx, accountId, args);
  if (target.kind === 'list') return { kind: 'list', list: target.list };
  if (target.kind === 'candidates') return { kind: 'candidates', query: target.query, candidates: target.candidates };
  const project = target.project;
  const row = await listingRow(ctx.db, project.project_id);
  const state = stateOf(row);
  const alreadyPublic = row !== null;

  if (!args.listed) {
    if (args.preview)
      return {
        kind: 'result',
        result: {
          preview: true,
          written: false,
          project: summarise(project),
          listing: state,
          wouldBe: { listed: false },
          warnings: state.listed ? [unshareNote()] : [],
        },
      };
    if (!row?.listed)
      return {
        kind: 'result',
        result: {
          written: false,
          project: summarise(project),
          listing: state,
          note: `"${project.name}" is not listed; nothing was written and no receipt was made.`,
        },
      };
    return { kind: 'result', result: await write(ctx, accountId, project, false, null, args.undoes) };
  }

  const lots = await lotsOfProject(ctx.db, project.project_id);
  const show = await wouldShow(ctx.db, project, lots);
  if (!show) throw noBuildLot(project);
  const warnings = warningsFor(project, show.pin, alreadyPublic);
  const listedHere = row?.listed && row.pin_lat === show.pin.lat && row.pin_lng === show.pin.lng;
  // Every pin that goes up is the human's decision: a first listing, a listing after an unlisting
  // (the site left the map; putting it back is a new publication) and a moved pin alike (issue 25).
  const needsHuman = !listedHere;
  if (args.preview)
    return {
      kind: 'result',
      result: {
        preview: true,
        written: false,
        project: summarise(project),
        listing: state,
        wouldShow: show,
        pin: show.pin,
        alreadyPublicKnowledge: alreadyPublic,
        needsHumanConfirmation: needsHuman,
        warnings,
      },
    };
  if (listedHere)
    return {
      kind: 'result',
      result: {
        written: false,
        project: summarise(project),
        listing: state,
        note: `"${project.name}" is already listed at this pin; nothing was written and no receipt was made.`,
      },
    };
  if (args.confirmedByHuman !== true) return { kind: 'needs_confirmation', project, wouldShow: show, warnings };
  return { kind: 'result', result: await write(ctx, accountId, project, true, show, args.undoes) };
}

function unshareNote(): string {
  return 'Unlisting removes the pin from the public map. What was public while it was listed (the pin, name, zone category, typology and lifecycle status) was not un-shared: anyone may have seen or copied it.';
}

async function write(
  ctx: AppContext,
  accountId: string,
  project: ProjectRow,
  listed: boolean,
  show: PublicListing | null,
  undoes?: string,
): Promise<Record<string, unknown>> {
  return ctx.db.transaction(async (tx) => {
    const locked = await projectById(tx, accountId, project.project_id, true);
    if (!locked) throw new SitelineError('not_found', 'The project was removed meanwhile.');
    const before = stateOf(await listingRow(tx, project.project_id));
    const now = ctx.clock.now().toISOString();
    if (listed && show) {
      await tx.query(
        `INSERT INTO project_map_listings (project_id, listed, listed_at, first_listed_at, unlisted_at, pin_lat, pin_lng, zone_category, typology)
         VALUES ($1, true, $2, $2, NULL, $3, $4, $5, $6)
         ON CONFLICT (project_id) DO UPDATE SET listed = true, listed_at = $2, unlisted_at = NULL, pin_lat = $3, pin_lng = $4, zone_category = $5, typology = $6`,
        [project.project_id, now, show.pin.lat, show.pin.lng, show.zoneCategory, show.typology],
      );
    } else {
      await tx.query('UPDATE project_map_listings SET listed = false, unlisted_at = $2 WHERE project_id = $1', [project.project_id, now]);
    }
    const after = stateOf(await listingRow(tx, project.project_id));
    const changes = [
      { field: 'mapListing.listed', before: before.listed, after: listed },
      ...(listed
        ? [{ field: 'mapListing.pin', before: before.listed ? before.pin : null, after: after.pin }]
        : [{ field: 'mapListing.pin', before: before.pin, after: null }]),
    ];
    const out = await insertReceipt(
      ctx,
      tx,
      {
        accountId,
        operation: 'project.map_listing',
        action: listed ? 'list' : 'unlist',
        projectId: project.project_id,
        changes,
        ...(undoes ? { undoes } : {}),
      },
      (receipt: Receipt) => ({
        written: true,
        receipt,
        project: summarise(locked),
        listing: after,
        ...(listed ? { public: show } : { note: unshareNote() }),
      }),
    );
    return out.result;
  });
}

/** Every listed project, exactly the public fields (no owner, address, externalRef or ids). */
export async function publicListings(q: Queryable): Promise<PublicListing[]> {
  const rows = await q.query<{ name: string; lifecycle_status: string; zone_category: string; typology: string; pin_lat: number; pin_lng: number }>(
    // The owner's typology is read live, like the name and lifecycle status; the derived one was taken when listed.
    `SELECT p.name, p.lifecycle_status, l.zone_category, COALESCE(p.typology, l.typology) AS typology, l.pin_lat, l.pin_lng
       FROM project_map_listings l JOIN projects p ON p.project_id = l.project_id
      WHERE l.listed ORDER BY l.first_listed_at, p.name`,
  );
  return rows.map((r) => ({
    name: r.name,
    zoneCategory: r.zone_category as ZoneCategory,
    typology: r.typology as Typology,
    lifecycleStatus: r.lifecycle_status,
    pin: { lat: r.pin_lat, lng: r.pin_lng },
  }));
}

/** The listing state of one of the caller's projects (for the project page). */
export async function listingStateOf(q: Queryable, projectId: string): Promise<ListingState> {
  return stateOf(await listingRow(q, projectId));
}
