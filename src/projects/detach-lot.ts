// Detaching a lot from a project: the lot's saved copy is removed (the parcel itself is untouched),
// the project's inputs version moves on (a finished analysis is then out of date) and a receipt records
// the lot and the role it had. Refused — with nothing written — when the lot is not attached, when it is
// the project's only build lot (analysis, the map pin and the report stand on it), or when it is a
// build lot while the project is listed on the public map (the pin would move without the human's say).
// Every refusal carries `next`: the step that would let the call through, for each surface to word.
import type { AppContext } from '../context.ts';
import { SitelineError, badInput } from '../core/errors.ts';
import { projectById, summarise } from './project-store.ts';
import { lotsOfProject } from './project-lots.ts';
import { listingStateOf } from './map-listing.ts';
import { insertReceipt, type FieldChange, type Receipt } from './receipts.ts';

export interface DetachArgs {
  projectId: string;
  parcelExternalId: string;
}

/** The receipt's tool and action: what was done (there is no MCP tool for it; saveToProject writes are not reversible there). */
const DETACH_RECEIPT = { operation: 'project.detach', action: 'detach' } as const;

export async function detachLot(ctx: AppContext, accountId: string, args: DetachArgs): Promise<Record<string, unknown>> {
  const id = args.parcelExternalId.trim();
  if (!id) throw badInput('Name the lot to detach (its parcelExternalId).', { field: 'parcelExternalId', next: { action: 'choose_lot' } });
  return ctx.db.transaction(async (tx) => {
    // Lock the project row: concurrent writes to one project apply one after the other.
    const project = await projectById(tx, accountId, args.projectId, true);
    if (!project) throw new SitelineError('not_found', `No project of yours has projectId ${args.projectId}.`);
    const lots = await lotsOfProject(tx, project.project_id);
    const lot = lots.find((l) => l.lot.parcelExternalId === id);
    if (!lot)
      throw badInput(`Lot ${id} is not attached to "${project.name}"; nothing was detached.`, {
        field: 'parcelExternalId',
        parcelExternalId: id,
        reason: 'not_attached',
        next: { action: 'reload' },
      });
    if (lot.role === 'build') {
      if (!lots.some((l) => l.role === 'build' && l !== lot))
        throw badInput(
          `Lot ${id} is the only build lot of "${project.name}": analysis, the map pin and the report stand on it. Attach another build lot first, then detach this one. Nothing was detached.`,
          { field: 'parcelExternalId', parcelExternalId: id, reason: 'last_build_lot', next: { action: 'attach_build_lot' } },
        );
      if ((await listingStateOf(tx, project.project_id)).listed)
        throw badInput(
          `"${project.name}" is listed on the public map and its pin stands on the build lots; detaching build lot ${id} would move the pin without anyone confirming it. Remove the project from the public map first. Nothing was detached.`,
          { field: 'parcelExternalId', parcelExternalId: id, reason: 'listed_on_map', next: { action: 'unlist' } },
        );
    }
    const now = ctx.clock.now().toISOString();
    await tx.query('DELETE FROM project_lots WHERE project_id = $1 AND place_id = $2 AND parcel_ext_id = $3', [project.project_id, lot.lot.geoDivisionId, id]);
    await tx.query('UPDATE projects SET inputs_version = inputs_version + 1, updated_at = $2 WHERE project_id = $1', [project.project_id, now]);
    const changes: FieldChange[] = [{ field: `lots.${id}`, before: { role: lot.role, areaSqft: lot.lot.areaSqft }, after: null }];
    const left = lots.filter((l) => l !== lot);
    const written = await insertReceipt(
      ctx,
      tx,
      // The lot as the project kept it, so an undo puts back the same facts (undo-change.ts).
      {
        accountId,
        operation: DETACH_RECEIPT.operation,
        action: DETACH_RECEIPT.action,
        projectId: project.project_id,
        changes,
        prior: { lots: { [id]: { role: lot.role, snapshot: lot.lot, attachedAt: lot.attachedAt } } },
      },
      (receipt: Receipt) => ({
        written: true,
        receipt,
        project: { ...summarise(project), updatedAt: now },
        detached: { parcelExternalId: id, role: lot.role },
        lots: left.map((l) => ({ parcelExternalId: l.lot.parcelExternalId, role: l.role, areaSqft: l.lot.areaSqft })),
      }),
    );
    return written.result;
  });
}
