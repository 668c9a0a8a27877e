// Undo any recorded change of a project (issue 49), by its receipt: an update (name, lifecycle status,
// external reference, typology: updateProject's own undo), lots attached, detached or re-roled, a bylaw
// section attached, a listing or an unlisting on the public map. The undo is itself a write with its
// own receipt (`undoes` names the one reversed), so it can be undone in turn (a redo). Refused, with
// nothing written, when what the change left has changed since (undo the later change first), when it
// was already undone, and for the two changes that cannot be reversed: creating the project (projects are
// never deleted) and queueing an analysis (a queued run cannot be withdrawn).
import type { AppContext } from '../context.ts';
import { SitelineError, badInput } from '../core/errors.ts';
import type { NextStep } from '../core/next-step.ts';
import { projectById, summarise } from './project-store.ts';
import { lotsOfProject, type LotRole, type LotSnapshot } from './project-lots.ts';
import { listingStateOf, setProjectMapListing } from './map-listing.ts';
import { updateProject } from './update-project.ts';
import { insertReceipt, receiptById, undoneBy, type FieldChange, type Receipt, type ReceiptRow } from './receipts.ts';

/** How a receipt's change is reversed (null: it cannot be). */
export type UndoKind = 'update' | 'lots_and_references' | 'list' | 'unlist';

/** What the receipt of an undo of lots or references records as its operation. */
const UNDO_OPERATION = 'project.undo';

/** The kind of undo a receipt allows, from what it records; null for a create or an analysis run. */
export function undoKindOf(r: Pick<Receipt, 'operation' | 'action' | 'changes'>): UndoKind | null {
  if (r.operation === 'project.update') return 'update';
  if (r.operation === 'project.map_listing') return r.action === 'unlist' ? 'unlist' : 'list';
  if (r.operation === 'project.save' && r.action === 'create') return null;
  if (r.operation === 'analysis.run') return null;
  const handled = r.changes.length > 0 && r.changes.every((c) => /^(lots|references)\.[\s\S]+$/.test(c.field));
  return handled ? 'lots_and_references' : null;
}

export interface UndoArgs {
  projectId: string;
  receiptId: string;
  /** Putting a site back on the public map is a publication: only a human's confirmation lets it through. */
  confirmedByHuman?: boolean;
}

export async function undoChange(ctx: AppContext, accountId: string, args: UndoArgs): Promise<Record<string, unknown>> {
  const r = await receiptById(ctx.db, accountId, args.receiptId.trim());
  if (!r || r.project_id !== args.projectId)
    throw new SitelineError('not_found', `No change of this project has receipt ${args.receiptId}.`, {
      field: 'receiptId',
      next: { action: 'reload' } satisfies NextStep,
    });
  const kind = undoKindOf({ operation: r.tool, action: r.action, changes: r.changes });
  if (!kind) throw notReversible(r);
  if (kind === 'update') {
    const out = await updateProject(ctx, accountId, { projectId: args.projectId, undoOperationId: r.receipt_id, preview: false });
    return out.kind === 'result' ? out.result : { written: false };
  }
  const later = await undoneBy(ctx.db, accountId, r.receipt_id);
  if (later)
    throw new SitelineError('conflict', 'That change was already undone; nothing was changed.', {
      field: 'receiptId',
      reason: 'already_undone',
      next: { action: 'reload' } satisfies NextStep,
    });
  if (kind === 'list' || kind === 'unlist') return undoListing(ctx, accountId, args, r, kind);
  return undoLotsAndReferences(ctx, accountId, args.projectId, r);
}

function notReversible(r: ReceiptRow): SitelineError {
  const why =
    r.tool === 'analysis.run'
      ? 'A queued analysis cannot be withdrawn; run it again when the project changes.'
      : 'Creating a project cannot be undone: projects are kept, never deleted. Set its lifecycle status to Abandoned instead.';
  return badInput(`${why} Nothing was changed.`, {
    field: 'receiptId',
    receiptId: r.receipt_id,
    reason: 'not_reversible',
    next: { action: 'not_reversible', receiptAction: r.action } satisfies NextStep,
  });
}

async function undoListing(ctx: AppContext, accountId: string, args: UndoArgs, r: ReceiptRow, kind: 'list' | 'unlist'): Promise<Record<string, unknown>> {
  const listed = (await listingStateOf(ctx.db, args.projectId)).listed;
  // What the listing left must still hold: listed after a listing, unlisted after an unlisting.
  if (listed !== (kind === 'list'))
    throw new SitelineError('conflict', `The project is ${listed ? 'on' : 'off'} the public map already, changed since; nothing was changed.`, {
      field: 'receiptId',
      reason: 'changed_since',
      next: { action: 'reload' } satisfies NextStep,
    });
  if (kind === 'unlist' && args.confirmedByHuman !== true)
    throw badInput('Putting the site back on the public map publishes it again: confirm it first. Nothing was published.', {
      field: 'confirm',
      reason: 'needs_confirmation',
    });
  const out = await setProjectMapListing(ctx, accountId, {
    projectId: args.projectId,
    listed: kind === 'unlist',
    preview: false,
    confirmedByHuman: kind === 'unlist',
    undoes: r.receipt_id,
  });
  return out.kind === 'result' ? out.result : { written: false };
}

/** A lot as an undo puts it back: the copy the project kept when it was attached. */
interface KeptLot {
  role: LotRole;
  snapshot: LotSnapshot;
  attachedAt: string;
}

/** What a receipt keeps to put back what it removed (a detached lot, a removed reference). */
interface Kept {
  lots?: Record<string, KeptLot>;
  references?: Record<string, unknown>;
}

type Step =
  | { kind: 'remove_lot'; id: string; role: LotRole }
  | { kind: 'restore_lot'; id: string; lot: KeptLot }
  | { kind: 'set_role'; id: string; from: LotRole; to: LotRole }
  | { kind: 'remove_reference'; uuid: string }
  | { kind: 'restore_reference'; uuid: string; section: unknown };

/** The steps that reverse a receipt's lot and reference changes, newest change first. */
function inverseSteps(r: ReceiptRow): Step[] {
  const kept = (r.prior ?? {}) as Kept;
  const steps: Step[] = [];
  for (const c of [...r.changes].reverse()) {
    const role = /^lots\.(.+)\.role$/.exec(c.field);
    const lot = /^lots\.(.+)$/.exec(c.field);
    const ref = /^references\.(.+)$/.exec(c.field);
    if (role) steps.push({ kind: 'set_role', id: role[1]!, from: c.after as LotRole, to: c.before as LotRole });
    else if (lot && c.before === null) steps.push({ kind: 'remove_lot', id: lot[1]!, role: (c.after as { role?: LotRole }).role ?? 'build' });
    else if (lot) {
      const k = kept.lots?.[lot[1]!];
      if (!k)
        throw badInput(
          `Lot ${lot[1]} was detached before undo kept a copy of it: attach it again (it gets the lot's facts as they are now). Nothing was changed.`,
          { field: 'receiptId', reason: 'not_kept', next: { action: 'choose_lot' } satisfies NextStep },
        );
      steps.push({ kind: 'restore_lot', id: lot[1]!, lot: k });
    } else if (ref && c.before === null) steps.push({ kind: 'remove_reference', uuid: ref[1]! });
    else if (ref) {
      const section = kept.references?.[ref[1]!];
      if (!section)
        throw badInput('That bylaw section was removed before undo kept a copy of it. Nothing was changed.', { field: 'receiptId', reason: 'not_kept' });
      steps.push({ kind: 'restore_reference', uuid: ref[1]!, section });
    }
  }
  return steps;
}

function changedSince(what: string): SitelineError {
  return new SitelineError(
    'conflict',
    `${what} changed since, so undoing this change would overwrite the later one. Undo the later change first. Nothing was changed.`,
    {
      field: 'receiptId',
      reason: 'changed_since',
      next: { action: 'reload' } satisfies NextStep,
    },
  );
}

// Long because: each step checks that what the change left still holds, then reverses it, and records it
// in the undo's own receipt (with what it removed, so the undo can be undone in turn).
async function undoLotsAndReferences(ctx: AppContext, accountId: string, projectId: string, r: ReceiptRow): Promise<Record<string, unknown>> {
  const steps = inverseSteps(r);
  return ctx.db.transaction(async (tx) => {
    const project = await projectById(tx, accountId, projectId, true);
    if (!project) throw new SitelineError('not_found', 'The project was removed meanwhile.');
    const lots = new Map((await lotsOfProject(tx, projectId)).map((l) => [l.lot.parcelExternalId, l]));
    const listed = (await listingStateOf(tx, projectId)).listed;
    const now = ctx.clock.now().toISOString();
    const changes: FieldChange[] = [];
    const kept: Kept = {};
    let lotsChanged = false;
    for (const s of steps) {
      if (s.kind === 'remove_lot') {
        const have = lots.get(s.id);
        if (!have || have.role !== s.role) throw changedSince(`Lot ${s.id} ${have ? `is now a ${have.role} lot; it` : 'is no longer attached; it'}`);
        // The pin stands on the build lots: removing one would move it without anyone confirming.
        if (have.role === 'build' && listed)
          throw badInput(
            `The project is on the public map and its pin stands on the build lots: remove it from the public map before undoing the attachment of build lot ${s.id}. Nothing was changed.`,
            { field: 'receiptId', reason: 'listed_on_map', next: { action: 'unlist' } satisfies NextStep },
          );
        await tx.query('DELETE FROM project_lots WHERE project_id = $1 AND place_id = $2 AND parcel_ext_id = $3', [projectId, have.lot.geoDivisionId, s.id]);
        (kept.lots ??= {})[s.id] = { role: have.role, snapshot: have.lot, attachedAt: have.attachedAt };
        changes.push({ field: `lots.${s.id}`, before: { role: have.role, areaSqft: have.lot.areaSqft }, after: null });
        lots.delete(s.id);
        lotsChanged = true;
      } else if (s.kind === 'restore_lot') {
        if (lots.has(s.id)) throw changedSince(`Lot ${s.id} was attached again since; it`);
        if (s.lot.role === 'build' && listed)
          throw badInput(
            `The project is on the public map and its pin stands on the build lots: remove it from the public map before putting back build lot ${s.id}. Nothing was changed.`,
            { field: 'receiptId', reason: 'listed_on_map', next: { action: 'unlist' } satisfies NextStep },
          );
        await tx.query('INSERT INTO project_lots (project_id, place_id, parcel_ext_id, role, snapshot, attached_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          projectId,
          s.lot.snapshot.geoDivisionId,
          s.id,
          s.lot.role,
          JSON.stringify(s.lot.snapshot),
          s.lot.attachedAt,
        ]);
        changes.push({ field: `lots.${s.id}`, before: null, after: { role: s.lot.role, areaSqft: s.lot.snapshot.areaSqft } });
        lotsChanged = true;
      } else if (s.kind === 'set_role') {
        const have = lots.get(s.id);
        if (!have || have.role !== s.from) throw changedSince(`Lot ${s.id} ${have ? `is now a ${have.role} lot; it` : 'is no longer attached; it'}`);
        if (listed && (s.from === 'build' || s.to === 'build'))
          throw badInput(
            `The project is on the public map and its pin stands on the build lots: remove it from the public map before changing the role of lot ${s.id}. Nothing was changed.`,
            { field: 'receiptId', reason: 'listed_on_map', next: { action: 'unlist' } satisfies NextStep },
          );
        await tx.query('UPDATE project_lots SET role = $4 WHERE project_id = $1 AND place_id = $2 AND parcel_ext_id = $3', [
          projectId,
          have.lot.geoDivisionId,
          s.id,
          s.to,
        ]);
        changes.push({ field: `lots.${s.id}.role`, before: s.from, after: s.to });
        lotsChanged = true;
      } else if (s.kind === 'remove_reference') {
        const rows = await tx.query<{ section: unknown }>('DELETE FROM project_references WHERE project_id = $1 AND section_uuid = $2 RETURNING section', [
          projectId,
          s.uuid,
        ]);
        if (!rows[0]) throw changedSince('That bylaw section is no longer attached; it');
        (kept.references ??= {})[s.uuid] = rows[0].section;
        changes.push({ field: `references.${s.uuid}`, before: referenceOf(rows[0].section), after: null });
      } else {
        const have = await tx.query('SELECT 1 FROM project_references WHERE project_id = $1 AND section_uuid = $2', [projectId, s.uuid]);
        if (have.length) throw changedSince('That bylaw section was attached again since; it');
        const section = typeof s.section === 'string' ? s.section : JSON.stringify(s.section);
        await tx.query('INSERT INTO project_references (project_id, section_uuid, section, attached_at) VALUES ($1, $2, $3, $4)', [
          projectId,
          s.uuid,
          section,
          now,
        ]);
        changes.push({ field: `references.${s.uuid}`, before: null, after: referenceOf(s.section) });
      }
    }
    await tx.query(`UPDATE projects SET ${lotsChanged ? 'inputs_version = inputs_version + 1, ' : ''}updated_at = $2 WHERE project_id = $1`, [projectId, now]);
    const written = await insertReceipt(
      ctx,
      tx,
      { accountId, operation: UNDO_OPERATION, action: 'undo', projectId, changes, prior: kept as Record<string, unknown>, undoes: r.receipt_id },
      (receipt: Receipt) => ({ written: true, receipt, project: { ...summarise(project), updatedAt: now } }),
    );
    return written.result;
  });
}

/** A reference as receipts show it (its section's short form). */
function referenceOf(section: unknown): Record<string, unknown> {
  const s = (typeof section === 'string' ? JSON.parse(section) : section) as Record<string, unknown>;
  return { sectionUuid: s['sectionUuid'], bylaw: s['bylaw'], section: s['section'], title: s['title'], sourceUrl: s['sourceUrl'] };
}
