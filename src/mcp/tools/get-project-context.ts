// getProjectContext (gated, read-only): the project, its analysis and a memory digest.
import { z } from 'zod';
import { defineTool } from '../tool-definition.ts';
import { MAX_DOCUMENTS_LIMIT, MAX_EVIDENCE_LIMIT, getProjectContext as load } from '../../reports/project-context.ts';
import { agentStatusOutput, callerAccount, candidatesOutcome, jsonOutcome, listedOutcome, projectChoiceOutput } from '../project-results.ts';

export const getProjectContext = defineTool({
  name: 'getProjectContext',
  title: 'Project context',
  description:
    'Loads one of your projects: its fields and external_ref, lots (build and context), compact agentStatus (none, queued, running, current, failed; inputsChanged: true next to current when lots or rules changed since), ' +
    'the analysis envelope (standards and derived values, each with value and status), document summaries (attached bylaw sections), evidence summaries (the citations behind the analysis, each with sectionUuid), ' +
    'a memory digest: a short text of what the project is, its lots and districts, headline numbers with statuses and the last changes, ' +
    "and exports: the account's report export meter (records.exports: used, allowance, remaining this month, resetsAt). " +
    `documentsLimit (0-${MAX_DOCUMENTS_LIMIT}) and evidenceLimit (0-${MAX_EVIDENCE_LIMIT}) bound the lists. Within 15 s of runFeasibilityAnalysis, while the run is unfinished, it answers only the status and the seconds to wait. ` +
    'With neither projectId nor project, it lists your projects.',
  input: z.object({
    projectId: z.string().optional().describe('Project UUID.'),
    project: z.string().optional().describe('Project name (case-insensitive; exact beats partial; several matches list candidates).'),
    documentsLimit: z
      .number()
      .int()
      .min(0, `documentsLimit must be an integer from 0 to ${MAX_DOCUMENTS_LIMIT}.`)
      .max(MAX_DOCUMENTS_LIMIT, `documentsLimit must be an integer from 0 to ${MAX_DOCUMENTS_LIMIT}.`)
      .describe(`How many document summaries, 0-${MAX_DOCUMENTS_LIMIT}.`),
    evidenceLimit: z
      .number()
      .int()
      .min(0, `evidenceLimit must be an integer from 0 to ${MAX_EVIDENCE_LIMIT}.`)
      .max(MAX_EVIDENCE_LIMIT, `evidenceLimit must be an integer from 0 to ${MAX_EVIDENCE_LIMIT}.`)
      .describe(`How many evidence summaries, 0-${MAX_EVIDENCE_LIMIT}.`),
  }),
  purpose: 'Loads one of your projects: fields, lots, analysis status and envelope, documents, evidence and a memory digest.',
  output: z.looseObject({
    ...projectChoiceOutput,
    project: z.looseObject({ projectId: z.string(), name: z.string() }).optional(),
    lots: z.array(z.record(z.string(), z.unknown())).optional(),
    agentStatus: agentStatusOutput.optional(),
    analysis: z.record(z.string(), z.unknown()).nullable().optional(),
    memoryDigest: z.string().optional(),
    recheck: z.looseObject({ retryAfterSeconds: z.number() }).optional(),
    exports: z.looseObject({ meter: z.string(), used: z.number(), allowance: z.number(), remaining: z.number() }).optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'gated',
  async handler(args, call) {
    const accountId = callerAccount(call);
    const out = await load(call.ctx, accountId, args);
    if (out.kind === 'list') return listedOutcome('getProjectContext', out.list, 'no project was loaded');
    if (out.kind === 'candidates') return candidatesOutcome('getProjectContext', out.query, out.candidates, 'no project was loaded');
    if (out.kind === 'recheck') return jsonOutcome(String(out.result['note']), out.result);
    return { text: String(out.result['memoryDigest']), structured: out.result };
  },
});
