// runFeasibilityAnalysis (gated, write): enqueue a deterministic analysis run; returns at once.
import { z } from 'zod';
import { defineTool } from '../tool-definition.ts';
import { runFeasibilityAnalysis as enqueue } from '../../analysis/run-feasibility-analysis.ts';
import { agentStatusOutput, callerAccount, candidatesOutcome, jsonOutcome, listedOutcome, projectChoiceOutput } from '../project-results.ts';

export const runFeasibilityAnalysis = defineTool({
  name: 'runFeasibilityAnalysis',
  title: 'Run feasibility analysis',
  description:
    'Enqueues a fresh deterministic feasibility analysis of a saved project (combined build-lot area, governing districts and standards, max floor area, dwelling units, buildable footprint, storeys, height, GFA envelope, each value with its status) ' +
    'and returns at once with agentStatus (queued) and a receipt id; it does not wait. Read the result with getProjectContext (no sooner than 15 s later while it runs). ' +
    'Identify the project by projectId or project (name; several matches list candidates and choose nothing); with neither, it lists your projects and queues nothing. A queued run cannot be withdrawn.',
  input: z.object({
    projectId: z.string().optional().describe('Project UUID; omit if project is passed.'),
    project: z.string().optional().describe('Project name; matching several lists the candidates instead of choosing.'),
  }),
  purpose: 'Queues a deterministic feasibility analysis of a saved project; read the result later with getProjectContext.',
  output: z.looseObject({
    ...projectChoiceOutput,
    runId: z.string().optional(),
    receiptId: z.string().optional(),
    agentStatus: agentStatusOutput.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  access: 'gated',
  async handler(args, call) {
    const accountId = callerAccount(call);
    const out = await enqueue(call.ctx, accountId, args);
    if (out.kind === 'list') return listedOutcome('runFeasibilityAnalysis', out.list, 'nothing was queued');
    if (out.kind === 'candidates') return candidatesOutcome('runFeasibilityAnalysis', out.query, out.candidates, 'nothing was queued');
    // The domain's note names no tool; an agent reads the status with getProjectContext.
    const note = `The run is queued; it does not finish within this call. Call getProjectContext after ${out.result['recheckAfterSeconds']} s to read agentStatus and, once current, the analysis.`;
    return jsonOutcome(`Queued run ${out.result['runId']} (receipt ${out.result['receiptId']}).`, { ...out.result, note });
  },
});
