// Reading projects, always on behalf of one account: every query filters by owner_account_id, so a
// caller never sees, matches or touches another account's project. Name matching lives here.
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError, badInput } from '../core/errors.ts';
import type { NextStep } from '../core/next-step.ts';

export interface ProjectRow {
  project_id: string;
  owner_account_id: string;
  name: string;
  address: string | null;
  lat: number | null;
  lng: number | null;
  place_id: string | null;
  lifecycle_status: string;
  external_ref: string | null;
  /** As the owner states it (null: not stated); migration 224. */
  typology: string | null;
  inputs_version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface ProjectSummary {
  projectId: string;
  name: string;
  address: string | null;
  location: { lat: number; lng: number } | null;
  geoDivisionId: string | null;
  lifecycleStatus: string;
  externalRef: string | null;
  /** What is planned on the site, as the owner states it (PROJECT_TYPOLOGIES), or null. */
  typology: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : new Date(d).toISOString());

export function summarise(p: ProjectRow): ProjectSummary {
  return {
    projectId: p.project_id,
    name: p.name,
    address: p.address,
    location: p.lat !== null && p.lng !== null ? { lat: p.lat, lng: p.lng } : null,
    geoDivisionId: p.place_id,
    lifecycleStatus: p.lifecycle_status,
    externalRef: p.external_ref,
    typology: p.typology ?? null,
    createdAt: iso(p.created_at),
    updatedAt: iso(p.updated_at),
  };
}

const PROJECT_COLUMNS =
  'project_id::text AS project_id, owner_account_id, name, address, lat, lng, place_id, lifecycle_status, external_ref, typology, inputs_version, created_at, updated_at';

/** How many projects a listing shows (the rest is counted in hasMore / total). */
const PROJECT_LIST_LIMIT = 50;

export interface ProjectList {
  projects: ProjectSummary[];
  total: number;
  hasMore: boolean;
}

export async function listProjects(ctx: AppContext, accountId: string, limit = PROJECT_LIST_LIMIT): Promise<ProjectList> {
  const rows = await ctx.db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE owner_account_id = $1 ORDER BY updated_at DESC, project_id LIMIT $2`,
    [accountId, limit + 1],
  );
  const counted = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE owner_account_id = $1', [accountId]);
  return { projects: rows.slice(0, limit).map(summarise), total: counted[0]?.n ?? 0, hasMore: rows.length > limit };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isUuid(s: string): boolean {
  return UUID.test(s);
}

/** A project of this account by id, locked FOR UPDATE inside a transaction when q is one. */
export async function projectById(q: Queryable, accountId: string, projectId: string, forUpdate = false): Promise<ProjectRow | null> {
  if (!isUuid(projectId)) return null;
  const rows = await q.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE project_id = $1 AND owner_account_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [projectId, accountId],
  );
  return rows[0] ?? null;
}

export type ProjectTarget =
  | { kind: 'list'; list: ProjectList }
  | { kind: 'candidates'; query: string; candidates: { projectId: string; name: string; lifecycleStatus: string }[] }
  | { kind: 'found'; project: ProjectRow; matchedBy: 'projectId' | 'exact_name' | 'partial_name' };

export interface TargetArgs {
  projectId?: string | undefined;
  project?: string | undefined;
}

/**
 * Which of the caller's projects a call means. Neither identifier: the caller's projects (nothing is
 * chosen). A name: case-insensitive; exact matches win over partial ones; several -> the candidates.
 */
export async function resolveProject(ctx: AppContext, accountId: string, args: TargetArgs): Promise<ProjectTarget> {
  const projectId = args.projectId?.trim();
  const name = args.project?.trim();
  if (!projectId && !name) return { kind: 'list', list: await listProjects(ctx, accountId) };
  if (projectId) {
    if (!isUuid(projectId))
      throw badInput(`projectId "${quoted(projectId)}" is not a UUID. Pass the projectId a listing returned, or the project's name as project.`, {
        field: 'projectId',
      });
    const p = await projectById(ctx.db, accountId, projectId);
    // The same answer for "no such project" and "another account's project": nothing leaks.
    if (!p)
      throw new SitelineError('not_found', `No project of yours has projectId ${projectId}. Call again without projectId and project to list your projects.`);
    if (name && p.name.toLowerCase() !== name.toLowerCase() && !p.name.toLowerCase().includes(name.toLowerCase()))
      throw badInput(`projectId ${projectId} is "${p.name}", which does not match project "${name}". Pass one of the two.`);
    return { kind: 'found', project: p, matchedBy: 'projectId' };
  }
  const needle = name!.toLowerCase();
  const exact = await ctx.db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE owner_account_id = $1 AND lower(name) = $2 ORDER BY created_at, project_id LIMIT 51`,
    [accountId, needle],
  );
  const pick = (rows: ProjectRow[], matchedBy: 'exact_name' | 'partial_name'): ProjectTarget =>
    rows.length === 1
      ? { kind: 'found', project: rows[0]!, matchedBy }
      : {
          kind: 'candidates',
          query: name!,
          candidates: rows.slice(0, 50).map((r) => ({ projectId: r.project_id, name: r.name, lifecycleStatus: r.lifecycle_status })),
        };
  if (exact.length) return pick(exact, 'exact_name');
  const partial = await ctx.db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE owner_account_id = $1 AND strpos(lower(name), $2) > 0 ORDER BY created_at, project_id LIMIT 51`,
    [accountId, needle],
  );
  if (partial.length) return pick(partial, 'partial_name');
  throw new SitelineError(
    'not_found',
    `None of your projects is named like "${quoted(name ?? '')}". Call again without projectId and project to list your projects.`,
  );
}

/** The other project of this account that already holds externalRef, if any. */
export async function externalRefHolder(q: Queryable, accountId: string, externalRef: string, exceptProjectId: string | null): Promise<ProjectRow | null> {
  const rows = await q.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE owner_account_id = $1 AND external_ref = $2 AND ($3::uuid IS NULL OR project_id <> $3::uuid)`,
    [accountId, externalRef, exceptProjectId],
  );
  return rows[0] ?? null;
}

export function externalRefClash(externalRef: string, other: ProjectRow): SitelineError {
  return new SitelineError(
    'conflict',
    `externalRef "${externalRef}" is already used by your project "${other.name}" (projectId ${other.project_id}); an externalRef is unique among your projects.`,
    {
      field: 'externalRef',
      otherProjectId: other.project_id,
      otherProjectName: other.name,
      next: { action: 'clear_external_ref', projectId: other.project_id } satisfies NextStep,
    },
  );
}

/** A caller's text quoted back in an error: at most 80 characters of it (a 5,000-character id is not repeated whole). */
function quoted(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
