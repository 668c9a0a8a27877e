// saveToProject: create a project, attach lots, attach a knowledge reference. Each action is planned
// first (the field-level diff), then written with its receipt unless preview; an idempotencyKey
// replays the first receipt for the same arguments and refuses different ones.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError, badInput } from '../core/errors.ts';
import { getFeasibilitySnapshot } from '../snapshot/snapshot.ts';
import { distanceM } from '../core/geo/primitives.ts';
import { DEFAULT_LIFECYCLE_STATUS, checkExternalRef, checkName } from './project-fields.ts';
import { externalRefClash, externalRefHolder, projectById, resolveProject, summarise, type ProjectRow, type ProjectList } from './project-store.ts';
import { lotAtPoint, parcelNear, snapshotLot, lotsOfProject, type LotRole, type LotSnapshot } from './project-lots.ts';
import { findKnowledgeSection } from './knowledge-index.ts';
import { withStatedDistrict } from './stated-lot-district.ts';
import { separateBuildLots, separateLotRemark } from './lot-adjacency.ts';
import type { NextStep } from '../core/next-step.ts';
import { argsDigest, checkIdempotencyKey, insertReceipt, isIdempotencyRace, replayIdempotent, type FieldChange, type Receipt } from './receipts.ts';

export const DEFAULT_RADIUS_M = 150;
export const MAX_RADIUS_M = 5_000;
/** How far an address given beside supplied coordinates may lie from them before the two are said to disagree. */
const ADDRESS_POINT_TOLERANCE_M = 100;
const MAX_PARCELS_PER_CALL = 50;

export interface SaveArgs {
  action: 'create' | 'attach_reference' | 'attach_parcels';
  name?: string | undefined;
  address?: string | undefined;
  lat?: number | undefined;
  lng?: number | undefined;
  projectId?: string | undefined;
  project?: string | undefined;
  sectionUuid?: string | undefined;
  parcelExternalIds?: string[] | undefined;
  role?: LotRole | undefined;
  radiusM?: number | undefined;
  idempotencyKey?: string | undefined;
  externalRef?: string | undefined;
  /** A place without a zoning map (Somerville): the district of the lot(s) attached, as the caller states it. */
  district?: string | undefined;
  /** With district, where it zones by building type. */
  buildingType?: string | undefined;
  /** With the building type: the conditions its table states values under (driveway access, ...), as stated. */
  conditions?: string[] | undefined;
  preview: boolean;
}

export type SaveOutcome =
  | { kind: 'list'; list: ProjectList }
  | { kind: 'candidates'; query: string; candidates: { projectId: string; name: string; lifecycleStatus: string }[] }
  | { kind: 'preview'; action: string; projectId: string | null; changes: FieldChange[]; warnings: string[] }
  | { kind: 'written'; result: Record<string, unknown> };

/** A planned write: its diff, and the statements that make it (run inside the receipt's transaction). */
interface Plan {
  projectId: string | null;
  changes: FieldChange[];
  warnings: string[];
  apply(q: Queryable): Promise<void>;
  /** The answer besides the receipt (e.g. the created project). */
  answer(q: Queryable): Promise<Record<string, unknown>>;
}

export async function saveToProject(ctx: AppContext, accountId: string, args: SaveArgs): Promise<SaveOutcome> {
  let project: ProjectRow | null = null;
  if (args.action !== 'create') {
    const target = await resolveProject(ctx, accountId, args);
    if (target.kind === 'list') return { kind: 'list', list: target.list };
    if (target.kind === 'candidates') return { kind: 'candidates', query: target.query, candidates: target.candidates };
    project = target.project;
  }
  const key = args.idempotencyKey !== undefined ? checkIdempotencyKey(args.idempotencyKey) : null;
  const digest = argsDigest('saveToProject', args as unknown as Record<string, unknown>);
  if (key && !args.preview) {
    const replay = await replayIdempotent(ctx.db, accountId, key, digest);
    if (replay) return { kind: 'written', result: replay };
  }
  const plan =
    args.action === 'create'
      ? await planCreate(ctx, accountId, args)
      : args.action === 'attach_parcels'
        ? await planAttachParcels(ctx, project!, args)
        : await planAttachReference(ctx, project!, args);
  // A created project's id is drawn when it is written: a preview has none to give (an id from it would name nothing).
  if (args.preview)
    return {
      kind: 'preview',
      action: args.action,
      projectId: args.action === 'create' ? null : plan.projectId,
      changes: plan.changes,
      warnings: plan.warnings,
    };
  try {
    const result = await ctx.db.transaction(async (tx) => {
      if (plan.projectId && args.action !== 'create') {
        // Lock the project row: concurrent writes to one project apply one after the other.
        if (!(await projectById(tx, accountId, plan.projectId, true))) throw new SitelineError('not_found', 'The project was removed meanwhile.');
      }
      await plan.apply(tx);
      const answer = await plan.answer(tx);
      const written = await insertReceipt(
        ctx,
        tx,
        {
          accountId,
          operation: 'project.save',
          action: args.action,
          projectId: plan.projectId,
          changes: plan.changes,
          ...(key ? { idempotency: { key, argsDigest: digest } } : {}),
        },
        (receipt: Receipt) => ({
          action: args.action,
          written: plan.changes.length > 0,
          receipt,
          ...answer,
          ...(plan.warnings.length ? { warnings: plan.warnings } : {}),
        }),
      );
      return written.result;
    });
    return { kind: 'written', result };
  } catch (err) {
    if (key && isIdempotencyRace(err)) {
      const replay = await replayIdempotent(ctx.db, accountId, key, digest);
      if (replay) return { kind: 'written', result: replay };
    }
    if (args.externalRef && (err as { code?: string }).code === '23505') {
      // A concurrent create took the same externalRef first.
      const other = await externalRefHolder(ctx.db, accountId, args.externalRef, null);
      if (other) throw externalRefClash(args.externalRef, other);
    }
    throw err;
  }
}

// Long because: a create's arguments checked in the order the tool's input lists them, each refusal
// naming its field; read top to bottom it is the tool's error table.
async function planCreate(ctx: AppContext, accountId: string, args: SaveArgs): Promise<Plan> {
  if (args.name === undefined) throw badInput('create needs a name for the project.', { field: 'name' });
  const name = checkName(args.name);
  const address = args.address?.trim() || null;
  const hasLat = args.lat !== undefined,
    hasLng = args.lng !== undefined;
  if (hasLat !== hasLng) throw badInput('Pass both lat and lng, or neither (the address is then geocoded).', { field: hasLat ? 'lng' : 'lat' });
  if (!hasLat && !address) throw badInput('create needs an address or a location (lat and lng).', { field: 'address' });
  const externalRef = args.externalRef !== undefined ? checkExternalRef(args.externalRef) : null;
  if (externalRef) {
    const other = await externalRefHolder(ctx.db, accountId, externalRef, null);
    if (other) throw externalRefClash(externalRef, other);
  }
  const warnings: string[] = [];
  let lat: number,
    lng: number,
    placeId: string | null = null;
  let lot: LotSnapshot | null = null;
  let locatedBy: string;
  if (hasLat) {
    lat = args.lat!;
    lng = args.lng!;
    if (!(lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180)) throw badInput('lat must be within -90..90 and lng within -180..180.', { field: 'lat' });
    locatedBy = 'supplied_coordinates';
    // Supplied coordinates are never re-geocoded: the lot is the one under the point, if any.
    const parcel = await lotAtPoint(ctx.db, lat, lng);
    if (parcel) {
      lot = await snapshotLot(ctx.db, parcel);
      placeId = parcel.place_id;
    } else warnings.push('No loaded lot lies under the supplied point, so no build lot was attached; attach one with action attach_parcels.');
    // An address given beside the point is stored as written; say so when it names a lot elsewhere.
    if (address) {
      // The check is a courtesy: an address that cannot be read (bad input) simply gets no check. Any
      // other failure is logged and said in a warning rather than passed over as "no conflict".
      let named: Awaited<ReturnType<typeof getFeasibilitySnapshot>> | null = null;
      try {
        named = await getFeasibilitySnapshot(ctx, address);
      } catch (err) {
        if (!(err instanceof SitelineError && err.code === 'bad_input')) {
          ctx.logger.error(
            { err: err instanceof Error ? err.message : String(err), accountId },
            'project save: the address beside the point could not be checked',
          );
          warnings.push(
            `The address "${address}" could not be checked against the supplied point (the lookup failed); the point was used. Check that both name the same site.`,
          );
        }
      }
      if (named?.answered && named.lot) {
        const apart = distanceM([lng, lat], [named.lot.longitude, named.lot.latitude]);
        if (apart > ADDRESS_POINT_TOLERANCE_M && named.lot.parcelExternalId !== lot?.parcelExternalId) {
          warnings.push(
            `The address "${address}" matches lot ${named.lot.parcelExternalId}, about ${Math.round(apart).toLocaleString('en-US')} m from the supplied point; the point was used (supplied coordinates are never re-geocoded). Check that both name the same site.`,
          );
        }
      }
    }
  } else {
    const snap = await getFeasibilitySnapshot(ctx, address!);
    if (!snap.answered || !snap.lot) {
      throw new SitelineError(
        'bad_input',
        `The address "${address}" could not be placed: ${snap.coverage.status}: ${snap.coverage.message} Correct the address or pass lat and lng.`,
        { field: 'address', coverageStatus: snap.coverage.status, ...(snap.suggestions?.length ? { suggestions: snap.suggestions } : {}) },
      );
    }
    lat = snap.lot.latitude;
    lng = snap.lot.longitude;
    placeId = snap.coverage.geoDivisionId ?? null;
    locatedBy = 'geocoded_address';
    const parcel = await parcelNear(ctx.db, placeId, snap.lot.parcelExternalId, { lat, lng }, 10);
    if (parcel.kind === 'found') lot = await snapshotLot(ctx.db, parcel.parcel);
  }
  if (lot) {
    const kept = await withStatedDistrict(ctx, lot, { district: args.district, buildingType: args.buildingType, conditions: args.conditions });
    lot = kept.lot;
    warnings.push(...kept.warnings);
  }
  const projectId = crypto.randomUUID();
  const changes: FieldChange[] = [
    { field: 'name', before: null, after: name },
    { field: 'address', before: null, after: address },
    { field: 'location', before: null, after: { lat, lng, locatedBy } },
    { field: 'lifecycleStatus', before: null, after: DEFAULT_LIFECYCLE_STATUS },
    { field: 'externalRef', before: null, after: externalRef },
  ];
  if (lot)
    changes.push({
      field: 'lots',
      before: null,
      after: { attached: [{ parcelExternalId: lot.parcelExternalId, role: 'build', ...(lot.statedDistrict ? { statedDistrict: lot.statedDistrict } : {}) }] },
    });
  return {
    projectId,
    changes,
    warnings,
    async apply(q) {
      const now = ctx.clock.now().toISOString();
      await q.query(
        `INSERT INTO projects (project_id, owner_account_id, name, address, lat, lng, place_id, lifecycle_status, external_ref, inputs_version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
        [projectId, accountId, name, address, lat, lng, placeId, DEFAULT_LIFECYCLE_STATUS, externalRef, lot ? 1 : 0, now],
      );
      if (lot)
        await q.query('INSERT INTO project_lots (project_id, place_id, parcel_ext_id, role, snapshot, attached_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          projectId,
          lot.geoDivisionId,
          lot.parcelExternalId,
          'build',
          JSON.stringify(lot),
          now,
        ]);
    },
    async answer() {
      const now = ctx.clock.now().toISOString();
      return {
        project: summarise({
          project_id: projectId,
          owner_account_id: accountId,
          name,
          address,
          lat,
          lng,
          place_id: placeId,
          lifecycle_status: DEFAULT_LIFECYCLE_STATUS,
          external_ref: externalRef,
          typology: null,
          inputs_version: lot ? 1 : 0,
          created_at: now,
          updated_at: now,
        }),
        lots: lot ? [{ parcelExternalId: lot.parcelExternalId, role: 'build', areaSqft: lot.areaSqft }] : [],
      };
    },
  };
}

// Long because: an attach's ids checked in the order the tool documents its refusals, each refusal naming the id; nothing is written until all pass.
async function planAttachParcels(ctx: AppContext, project: ProjectRow, args: SaveArgs): Promise<Plan> {
  const ids = [...new Set((args.parcelExternalIds ?? []).map((s) => s.trim()).filter(Boolean))];
  if (ids.length === 0)
    throw badInput('attach_parcels needs parcelExternalIds.', { field: 'parcelExternalIds', next: { action: 'look_up_lot' } satisfies NextStep });
  if (ids.length > MAX_PARCELS_PER_CALL) throw badInput(`At most ${MAX_PARCELS_PER_CALL} parcelExternalIds per call.`, { field: 'parcelExternalIds' });
  const role: LotRole = args.role ?? 'build';
  const radiusM = args.radiusM ?? DEFAULT_RADIUS_M;
  if (!(radiusM >= 1 && radiusM <= MAX_RADIUS_M)) throw badInput(`radiusM must be between 1 and ${MAX_RADIUS_M} metres.`, { field: 'radiusM' });
  if (project.lat === null || project.lng === null) throw badInput(`Project "${project.name}" has no location, so lots cannot be searched around it.`);
  const at = { lat: project.lat, lng: project.lng };
  const existing = new Map((await lotsOfProject(ctx.db, project.project_id)).map((l) => [l.lot.parcelExternalId, l]));
  const toInsert: LotSnapshot[] = [];
  const roleChanges: { id: string; placeId: string }[] = [];
  const attached: { parcelExternalId: string; role: LotRole; areaSqft: number; district?: LotSnapshot['statedDistrict'] }[] = [];
  const statedWarnings: string[] = [];
  const unchanged: string[] = [];
  for (const id of ids) {
    const have = existing.get(id);
    if (have) {
      // Never a silent demotion: the build lot is what analysis, map and report stand on (issue 25).
      if (have.role === 'build' && role === 'context')
        throw badInput(
          `Parcel ${id} is already this project's build lot, so it cannot also be attached as context: that would demote it, and analysis, the map and the report need a build lot. ` +
            'A neighbour whose address resolves to this lot is the same lot; attach the neighbouring parcel by its own parcelExternalId. Nothing was attached.',
          { field: 'parcelExternalIds', parcelExternalId: id, currentRole: 'build', requestedRole: 'context' },
        );
      if (have.role === role) unchanged.push(id);
      else roleChanges.push({ id, placeId: have.lot.geoDivisionId });
      continue;
    }
    const found = await parcelNear(ctx.db, project.place_id, id, at, radiusM);
    if (found.kind === 'outside')
      throw badInput(
        `Parcel ${id} lies about ${Math.round(found.distanceM)} m from the project's location, outside the search square of half-width radiusM=${radiusM} m. Pass a larger radiusM (at least ${Math.ceil(found.distanceM) + 10}) to attach it. Nothing was attached.`,
        {
          field: 'parcelExternalIds',
          parcelExternalId: id,
          distanceM: Math.round(found.distanceM),
          next: { action: 'widen_radius', radiusM: Math.ceil(found.distanceM) + 10 } satisfies NextStep,
        },
      );
    if (found.kind === 'unknown')
      throw badInput(`Parcel ${id} is not a known lot${project.place_id ? ` in ${project.place_id}` : ''}. Nothing was attached.`, {
        field: 'parcelExternalIds',
        parcelExternalId: id,
        next: { action: 'look_up_lot' } satisfies NextStep,
      });
    const kept = await withStatedDistrict(ctx, await snapshotLot(ctx.db, found.parcel), {
      district: args.district,
      buildingType: args.buildingType,
      conditions: args.conditions,
    });
    const snap = kept.lot;
    statedWarnings.push(...kept.warnings);
    toInsert.push(snap);
    attached.push({ parcelExternalId: id, role, areaSqft: snap.areaSqft, ...(snap.statedDistrict ? { district: snap.statedDistrict } : {}) });
  }
  const changes: FieldChange[] = [];
  for (const a of attached)
    changes.push({
      field: `lots.${a.parcelExternalId}`,
      before: null,
      after: { role, areaSqft: a.areaSqft, ...(a.district ? { statedDistrict: a.district } : {}) },
    });
  for (const r of roleChanges) changes.push({ field: `lots.${r.id}.role`, before: existing.get(r.id)!.role, after: role });
  const warnings = [
    ...(unchanged.length ? [`Already attached with role ${role}, unchanged (a lot keeps the facts it had when attached): ${unchanged.join(', ')}.`] : []),
    ...statedWarnings,
  ];
  // A build lot that touches none of the others is accepted, with a remark (issue 49): the analysis adds the build lots up as one site.
  if (role === 'build') {
    const becoming = new Set([...toInsert.map((l) => l.parcelExternalId), ...roleChanges.map((r) => r.id)]);
    const build = [
      ...[...existing.values()]
        .filter((l) => l.role === 'build')
        .sort((a, b) => a.attachedAt.localeCompare(b.attachedAt))
        .map((l) => ({ parcelExternalId: l.lot.parcelExternalId, polygon: l.lot.polygon })),
      ...toInsert.map((l) => ({ parcelExternalId: l.parcelExternalId, polygon: l.polygon })),
      ...roleChanges.map((r) => ({ parcelExternalId: r.id, polygon: existing.get(r.id)!.lot.polygon })),
    ];
    for (const apart of separateBuildLots(build)) if (becoming.has(apart.parcelExternalId)) warnings.push(separateLotRemark(apart));
  }
  return {
    projectId: project.project_id,
    changes,
    warnings,
    async apply(q) {
      if (changes.length === 0) return;
      const now = ctx.clock.now().toISOString();
      for (const lot of toInsert)
        await q.query('INSERT INTO project_lots (project_id, place_id, parcel_ext_id, role, snapshot, attached_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          project.project_id,
          lot.geoDivisionId,
          lot.parcelExternalId,
          role,
          JSON.stringify(lot),
          now,
        ]);
      for (const r of roleChanges)
        await q.query('UPDATE project_lots SET role = $4 WHERE project_id = $1 AND place_id = $2 AND parcel_ext_id = $3', [
          project.project_id,
          r.placeId,
          r.id,
          role,
        ]);
      const place = project.place_id ?? toInsert[0]?.geoDivisionId ?? null;
      await q.query('UPDATE projects SET inputs_version = inputs_version + 1, updated_at = $2, place_id = COALESCE(place_id, $3) WHERE project_id = $1', [
        project.project_id,
        now,
        place,
      ]);
    },
    async answer(q) {
      const lots = await lotsOfProject(q, project.project_id);
      return { project: summarise(project), lots: lots.map((l) => ({ parcelExternalId: l.lot.parcelExternalId, role: l.role, areaSqft: l.lot.areaSqft })) };
    },
  };
}

async function planAttachReference(ctx: AppContext, project: ProjectRow, args: SaveArgs): Promise<Plan> {
  const uuid = args.sectionUuid?.trim();
  if (!uuid) throw badInput('attach_reference needs a sectionUuid.', { field: 'sectionUuid', next: { action: 'look_up_citation' } satisfies NextStep });
  const section = await findKnowledgeSection(ctx, uuid);
  if (!section)
    throw new SitelineError('not_found', `No knowledge section has sectionUuid ${uuid}.`, {
      field: 'sectionUuid',
      next: { action: 'look_up_citation' } satisfies NextStep,
    });
  // A section is words of one place's bylaw: a project in another place cannot rely on it.
  if (project.place_id) {
    const [owner] = await ctx.db.query<{ place_id: string; name: string }>('SELECT place_id, name FROM places WHERE slug = $1', [section.place]);
    if (owner && owner.place_id !== project.place_id) {
      const [here] = await ctx.db.query<{ name: string }>('SELECT name FROM places WHERE place_id = $1', [project.place_id]);
      throw badInput(
        `Section ${section.section} is from ${section.bylaw} (${owner.name}); "${project.name}" is in ${here?.name ?? project.place_id}, whose bylaw it does not belong to. Attach a section cited for a lot of this project's place. Nothing was attached.`,
        { field: 'sectionUuid' },
      );
    }
  }
  const have = await ctx.db.query('SELECT 1 FROM project_references WHERE project_id = $1 AND section_uuid = $2', [project.project_id, section.sectionUuid]);
  const ref = { sectionUuid: section.sectionUuid, bylaw: section.bylaw, section: section.section, title: section.title, sourceUrl: section.sourceUrl };
  const changes: FieldChange[] = have.length ? [] : [{ field: `references.${section.sectionUuid}`, before: null, after: ref }];
  return {
    projectId: project.project_id,
    changes,
    warnings: have.length ? [`Section ${section.section} is already attached to "${project.name}"; unchanged.`] : [],
    async apply(q) {
      if (!changes.length) return;
      const now = ctx.clock.now().toISOString();
      await q.query('INSERT INTO project_references (project_id, section_uuid, section, attached_at) VALUES ($1, $2, $3, $4)', [
        project.project_id,
        section.sectionUuid,
        JSON.stringify(section),
        now,
      ]);
      await q.query('UPDATE projects SET updated_at = $2 WHERE project_id = $1', [project.project_id, now]);
    },
    async answer() {
      return { project: summarise(project), reference: ref };
    },
  };
}
