// saveToProject (gated, write): create a project, attach lots, attach a knowledge reference.
import { MAX_NAME_CHARS } from '../../projects/project-fields.ts';
import { MAX_RADIUS_M } from '../../projects/save-to-project.ts';
import { z } from 'zod';
import { defineTool } from '../tool-definition.ts';
import { saveToProject as save } from '../../projects/save-to-project.ts';
import { callerAccount, candidatesOutcome, fieldChangeOutput, jsonOutcome, listedOutcome, projectChoiceOutput } from '../project-results.ts';

export const saveToProject = defineTool({
  name: 'saveToProject',
  title: 'Save to project',
  description:
    'Creates a project (action create: name plus address, geocoded by the service, or lat/lng, never re-geocoded; the lot under the point becomes the build lot), ' +
    'attaches lots (attach_parcels: parcelExternalIds copied from getFeasibilitySnapshot lot.parcelExternalId, role build or context, default build; each must lie within radiusM, default 150 m half-width, of the project location, else pass a larger radiusM), ' +
    'or attaches a bylaw section (attach_reference: sectionUuid copied from a citation). Attach actions take projectId or project (name; several matches list candidates and choose nothing); ' +
    'with neither, it lists your projects and writes nothing. preview=true returns the field-level diff and writes nothing. Every write returns a stored receipt and is not reversible here. ' +
    'idempotencyKey: a retry with the same key and arguments returns the first receipt; the same key with other arguments is an error. externalRef is "<system>:<id>", unique among your projects.',
  input: z.object({
    action: z.enum(['create', 'attach_reference', 'attach_parcels']).describe('create, attach_parcels or attach_reference.'),
    name: z
      .string()
      .max(MAX_NAME_CHARS, `name is longer than ${MAX_NAME_CHARS} characters.`)
      .optional()
      .describe(`Project name (create), at most ${MAX_NAME_CHARS} characters.`),
    address: z.string().max(300).optional().describe('On create: geocoded server-side when lat/lng are missing.'),
    lat: z.number().optional().describe('Latitude; supplied coordinates are never re-geocoded.'),
    lng: z.number().optional().describe('Longitude; supplied coordinates are never re-geocoded.'),
    projectId: z.string().optional().describe('Project UUID for attach actions; ignored by create.'),
    project: z.string().optional().describe('Project name for attach actions (case-insensitive; exact beats partial); ignored by create.'),
    sectionUuid: z.string().optional().describe('Knowledge section for attach_reference (citations.<id>.sectionUuid in a snapshot).'),
    parcelExternalIds: z.array(z.string().max(200)).max(50).optional().describe('Lot ids as the snapshot returns them (lot.parcelExternalId), at most 50.'),
    role: z.enum(['build', 'context']).optional().describe('build (lot being developed, default) or context (surrounding land).'),
    radiusM: z
      .number()
      .int()
      .min(1, `radiusM must be between 1 and ${MAX_RADIUS_M} metres.`)
      .max(MAX_RADIUS_M, `radiusM must be between 1 and ${MAX_RADIUS_M} metres.`)
      .optional()
      .describe(`Half-width of the search square around the project location, metres. Default 150, at most ${MAX_RADIUS_M}.`),
    idempotencyKey: z.string().optional().describe('Retry key: same key + same arguments returns the first receipt.'),
    externalRef: z.string().optional().describe('On create: "<system>:<id>", unique among your projects. Distinct from idempotencyKey.'),
    district: z
      .string()
      .max(80)
      .optional()
      .describe(
        "On create and attach_parcels in a place without a zoning map (Somerville, MA): the lot's zoning district as the City's official map shows it (e.g. NR). Kept with the lot, with its source; the analysis and the report use it. Not used where a zoning map gives the district.",
      ),
    buildingType: z.string().max(80).optional().describe('With district, where the district zones by building type (e.g. "Detached House").'),
    conditions: z
      .array(z.string().max(120))
      .max(10)
      .optional()
      .describe(
        'With buildingType: the conditions its table states values under, as getFeasibilitySnapshot takes them ("Driveway access=Front Driveway Access"). Kept with the lot; the analysis resolves those values with them.',
      ),
    preview: z.boolean().describe('true: return the diff and write nothing.'),
  }),
  purpose: 'Creates a project from an address or lat/lng, attaches lots (build or context) or a bylaw section; preview first.',
  output: z.looseObject({
    ...projectChoiceOutput,
    projectId: z.string().nullable().optional(),
    changes: z.array(fieldChangeOutput).optional(),
    idempotentReplay: z.boolean().optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  access: 'gated',
  async handler(args, call) {
    const accountId = callerAccount(call);
    const out = await save(call.ctx, accountId, args);
    if (out.kind === 'list') return listedOutcome('saveToProject', out.list, 'nothing was written');
    if (out.kind === 'candidates') return candidatesOutcome('saveToProject', out.query, out.candidates, 'nothing was written');
    if (out.kind === 'preview') {
      const structured = {
        preview: true,
        written: false,
        action: out.action,
        projectId: out.projectId,
        changes: out.changes,
        ...(out.warnings.length ? { warnings: out.warnings } : {}),
      };
      return jsonOutcome(`Preview of ${out.action}: ${out.changes.length} change(s); nothing was written.`, structured);
    }
    const receipt = out.result['receipt'] as { receiptId: string } | undefined;
    return jsonOutcome(
      `${args.action} ${out.result['idempotentReplay'] ? 'was already done with this idempotencyKey; the first receipt is returned and nothing new was written' : 'written'} (receipt ${receipt?.receiptId}).`,
      out.result,
    );
  },
});
