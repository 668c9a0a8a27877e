// updateProject (gated, write): patch name, lifecycleStatus, externalRef, typology; preview; undo by receipt.
import { MAX_NAME_CHARS } from '../../projects/project-fields.ts';
import { z } from 'zod';
import { defineTool } from '../tool-definition.ts';
import { updateProject as update } from '../../projects/update-project.ts';
import { LIFECYCLE_STATUSES, PROJECT_TYPOLOGIES } from '../../projects/project-fields.ts';
import { callerAccount, candidatesOutcome, fieldChangeOutput, jsonOutcome, listedOutcome, projectChoiceOutput } from '../project-results.ts';

export const updateProject = defineTool({
  name: 'updateProject',
  title: 'Update project',
  description:
    `Patches a project's name, lifecycleStatus (one of: ${LIFECYCLE_STATUSES.join(', ')}), externalRef ("<system>:<id>"; "" clears it) and typology (what is planned on the site, shown on the public map: ${PROJECT_TYPOLOGIES.join(', ')}; "" clears it). Never archives or deletes. ` +
    'Identify the project by projectId or project (name; several matches list candidates and choose nothing); with neither, it lists your projects and writes nothing. ' +
    'preview=true returns the field-level diff and writes nothing. undoOperationId (the receiptId of an earlier updateProject write) restores the fields that write replaced, as a new write with its own receipt; ' +
    'it is refused, with the reason, when those fields were changed again since. With preview=true and undoOperationId, the stored receipt is returned.',
  input: z.object({
    projectId: z.string().optional().describe('Project UUID.'),
    project: z.string().optional().describe('Project name (case-insensitive; exact beats partial).'),
    name: z
      .string()
      .max(MAX_NAME_CHARS, `name is longer than ${MAX_NAME_CHARS} characters.`)
      .optional()
      .describe(`New project name, at most ${MAX_NAME_CHARS} characters.`),
    lifecycleStatus: z
      .string()
      .max(100)
      .optional()
      .describe(`New lifecycle status: ${LIFECYCLE_STATUSES.join(', ')}.`),
    // Advertised as a plain string (a string-or-null union loses its type in LangChain's MCP adapter and in
    // single-type dialects): "" clears it; null, the older spelling, still does.
    externalRef: z
      .preprocess((v) => (v === null ? '' : v), z.string().max(300))
      .optional()
      .describe('"<system>:<id>", unique among your projects; an empty string "" clears it (null does too).'),
    typology: z
      .preprocess((v) => (v === null ? '' : v), z.string().max(100))
      .optional()
      .describe(`What is planned on the site, shown on the public map: ${PROJECT_TYPOLOGIES.join(', ')}; an empty string "" clears it.`),
    preview: z.boolean().describe('true: return the diff (or, with undoOperationId, the stored receipt) and write nothing.'),
    undoOperationId: z.string().max(100).optional().describe('receiptId of an earlier updateProject write to undo.'),
  }),
  purpose: "Patches a project's name, lifecycle status, external ref or typology, or undoes an earlier update by its receipt; preview first.",
  output: z.looseObject({
    ...projectChoiceOutput,
    project: z.looseObject({ projectId: z.string(), name: z.string() }).optional(),
    changes: z.array(fieldChangeOutput).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  access: 'gated',
  async handler(args, call) {
    const accountId = callerAccount(call);
    const out = await update(call.ctx, accountId, {
      ...args,
      ...(args.externalRef === '' ? { externalRef: null } : {}),
      ...(args.typology === '' ? { typology: null } : {}),
    });
    if (out.kind === 'list') return listedOutcome('updateProject', out.list, 'nothing was written');
    if (out.kind === 'candidates') return candidatesOutcome('updateProject', out.query, out.candidates, 'nothing was written');
    const r = out.result;
    const sentence = r['preview']
      ? 'Preview; nothing was written.'
      : r['written']
        ? `Written (receipt ${(r['receipt'] as { receiptId: string }).receiptId}).`
        : 'Nothing changed.';
    return jsonOutcome(sentence, r);
  },
});
