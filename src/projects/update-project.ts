// updateProject: patch name, lifecycleStatus, externalRef and typology (never archive or delete); preview the
// diff; undo an earlier updateProject receipt by restoring the fields it replaced — itself a write
// with its own receipt, refused when those fields were changed again since.
import type { AppContext } from '../context.ts';
import { SitelineError, badInput } from '../core/errors.ts';
import { checkExternalRef, checkLifecycleStatus, checkName, checkTypology } from './project-fields.ts';
import { externalRefClash, externalRefHolder, projectById, resolveProject, summarise, type ProjectRow, type ProjectList } from './project-store.ts';
import { insertReceipt, receiptById, receiptOf, undoneBy, type FieldChange, type Receipt } from './receipts.ts';
import type { NextStep } from '../core/next-step.ts';

/** What updateProject's receipts record in their `tool` column (stored; the undo looks for it). */
const UPDATE_OPERATION = 'project.update';

export interface UpdateArgs {
  projectId?: string | undefined;
  project?: string | undefined;
  name?: string | undefined;
  lifecycleStatus?: string | undefined;
  /** null clears it; undefined leaves it. */
  externalRef?: string | null | undefined;
  /** null clears it; undefined leaves it. */
  typology?: string | null | undefined;
  preview: boolean;
  undoOperationId?: string | undefined;
}

/** The patchable fields as the tool names them, and the column behind each. */
const FIELDS = { name: 'name', lifecycleStatus: 'lifecycle_status', externalRef: 'external_ref', typology: 'typology' } as const;
type Field = keyof typeof FIELDS;
type Patch = Partial<Record<Field, string | null>>;

export type UpdateOutcome =
  | { kind: 'list'; list: ProjectList }
  | { kind: 'candidates'; query: string; candidates: { projectId: string; name: string; lifecycleStatus: string }[] }
  | { kind: 'result'; result: Record<string, unknown> };

const current = (p: ProjectRow): Record<Field, string | null> => ({
  name: p.name,
  lifecycleStatus: p.lifecycle_status,
  externalRef: p.external_ref,
  typology: p.typology ?? null,
});

export async function updateProject(ctx: AppContext, accountId: string, args: UpdateArgs): Promise<UpdateOutcome> {
  const target = await resolveProject(ctx, accountId, args);
  if (target.kind === 'list') return { kind: 'list', list: target.list };
  if (target.kind === 'candidates') return { kind: 'candidates', query: target.query, candidates: target.candidates };
  const project = target.project;
  if (args.undoOperationId !== undefined) {
    if (args.name !== undefined || args.lifecycleStatus !== undefined || args.externalRef !== undefined || args.typology !== undefined)
      throw badInput('Pass either undoOperationId or the fields to change (name, lifecycleStatus, externalRef, typology), not both.');
    return undo(ctx, accountId, project, args.undoOperationId, args.preview);
  }
  const patch: Patch = {};
  if (args.name !== undefined) patch.name = checkName(args.name);
  if (args.lifecycleStatus !== undefined) patch.lifecycleStatus = checkLifecycleStatus(args.lifecycleStatus);
  if (args.externalRef !== undefined) patch.externalRef = args.externalRef === null ? null : checkExternalRef(args.externalRef);
  if (args.typology !== undefined) patch.typology = args.typology === null ? null : checkTypology(args.typology);
  if (Object.keys(patch).length === 0)
    throw badInput(
      'Nothing to change: pass name, lifecycleStatus, externalRef or typology (null clears either), or undoOperationId to undo an earlier update.',
    );
  return applyPatch(ctx, accountId, project, patch, args.preview, null);
}

async function applyPatch(
  ctx: AppContext,
  accountId: string,
  project: ProjectRow,
  patch: Patch,
  preview: boolean,
  undoes: string | null,
): Promise<UpdateOutcome> {
  const now = current(project);
  const changes: FieldChange[] = [];
  for (const f of Object.keys(FIELDS) as Field[]) if (f in patch && patch[f] !== now[f]) changes.push({ field: f, before: now[f], after: patch[f] });
  if (patch.externalRef) {
    const other = await externalRefHolder(ctx.db, accountId, patch.externalRef, project.project_id);
    if (other) throw externalRefClash(patch.externalRef, other);
  }
  if (preview) return { kind: 'result', result: { preview: true, project: summarise(project), changes, ...(undoes ? { undoes } : {}) } };
  if (changes.length === 0)
    return {
      kind: 'result',
      result: {
        written: false,
        project: summarise(project),
        changes,
        note: 'Every field already has the value given; nothing was written and no receipt was made.',
      },
    };
  const result = await ctx.db.transaction(async (tx) => {
    const locked = await projectById(tx, accountId, project.project_id, true);
    if (!locked) throw new SitelineError('not_found', 'The project was removed meanwhile.');
    const live = current(locked);
    for (const c of changes)
      if (live[c.field as Field] !== c.before)
        throw new SitelineError(
          'conflict',
          `${c.field} of "${locked.name}" changed while this update was prepared (now ${JSON.stringify(live[c.field as Field])}); call again.`,
        );
    const sets = changes.map((c, i) => `${FIELDS[c.field as Field]} = $${i + 3}`);
    try {
      await tx.query(`UPDATE projects SET ${sets.join(', ')}, updated_at = $2 WHERE project_id = $1`, [
        project.project_id,
        ctx.clock.now().toISOString(),
        ...changes.map((c) => c.after),
      ]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505' && patch.externalRef) {
        const other = await externalRefHolder(tx, accountId, patch.externalRef, project.project_id);
        if (other) throw externalRefClash(patch.externalRef, other);
      }
      throw err;
    }
    const prior = Object.fromEntries(changes.map((c) => [c.field, c.before]));
    const after = Object.fromEntries(changes.map((c) => [c.field, c.after]));
    const updated = { ...locked, ...Object.fromEntries(changes.map((c) => [FIELDS[c.field as Field], c.after])) } as ProjectRow;
    const written = await insertReceipt(
      ctx,
      tx,
      {
        accountId,
        operation: UPDATE_OPERATION,
        action: undoes ? 'undo' : 'update',
        projectId: project.project_id,
        changes,
        prior,
        after,
        ...(undoes ? { undoes } : {}),
      },
      (receipt: Receipt) => ({ written: true, receipt, project: { ...summarise(updated), updatedAt: receipt.at } }),
    );
    return written.result;
  });
  return { kind: 'result', result };
}

async function undo(ctx: AppContext, accountId: string, project: ProjectRow, receiptId: string, preview: boolean): Promise<UpdateOutcome> {
  const r = await receiptById(ctx.db, accountId, receiptId.trim());
  if (!r)
    throw new SitelineError('not_found', `No receipt of yours has id ${receiptId}.`, {
      field: 'undoOperationId',
      next: { action: 'pick_update_receipt' } satisfies NextStep,
    });
  if (r.tool !== UPDATE_OPERATION || !r.prior)
    throw badInput(
      `Receipt ${receiptId} cannot be undone here: only updates of a project's name, lifecycle status, external reference and typology can be; attaching lots or references, listings and analysis runs are not reversible on this surface.`,
      {
        field: 'undoOperationId',
        receiptId: r.receipt_id,
        receiptOperation: r.tool,
        next: { action: 'not_reversible', receiptAction: r.action } satisfies NextStep,
      },
    );
  if (r.project_id !== project.project_id)
    throw badInput(`Receipt ${receiptId} belongs to another of your projects (projectId ${r.project_id}), not "${project.name}".`, {
      field: 'undoOperationId',
    });
  const stored = receiptOf(r);
  const restore = r.prior as Patch;
  const wrote = (r.after ?? {}) as Patch;
  const later = await undoneBy(ctx.db, accountId, r.receipt_id);
  const live = current(project);
  const changedSince = (Object.keys(restore) as Field[]).filter((f) => live[f] !== wrote[f]);
  const refusal = later
    ? `Receipt ${receiptId} was already undone by receipt ${later.receipt_id} at ${new Date(later.created_at).toISOString()}; nothing to undo.`
    : changedSince.length
      ? `Refused: ${changedSince.map((f) => `${f} is now ${JSON.stringify(live[f])}, not ${JSON.stringify(wrote[f])} as receipt ${receiptId} left it`).join('; ')}. ` +
        'It was changed again since, so restoring the earlier value would overwrite that later change. Undo the later receipt first, or set the field with a normal update.'
      : null;
  if (preview)
    return {
      kind: 'result',
      result: {
        preview: true,
        storedReceipt: stored,
        wouldRestore: restore,
        undoable: refusal === null,
        ...(refusal ? { refusal } : {}),
        project: summarise(project),
      },
    };
  if (refusal)
    throw new SitelineError('conflict', refusal, { field: 'undoOperationId', receiptId: r.receipt_id, ...(changedSince.length ? { changedSince } : {}) });
  return applyPatch(ctx, accountId, project, restore, false, r.receipt_id);
}
