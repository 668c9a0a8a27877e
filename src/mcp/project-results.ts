// Shared by the project tools: who the caller is, and the answers that choose nothing (the caller's
// projects when no identifier was given; the candidates when a name matches several projects).
import { z } from 'zod';
import { SitelineError } from '../core/errors.ts';
import type { ProjectList } from '../projects/project-store.ts';
import type { ToolCallContext, ToolOutcome } from './tool-definition.ts';

export function callerAccount(call: ToolCallContext): string {
  const id = call.caller?.accountId;
  if (!id) throw new SitelineError('forbidden', 'Projects belong to a signed-in account: sign in (a claimed token with scope mcp) and call again.');
  return id;
}

export function listedOutcome(tool: string, list: ProjectList, nothing: string): ToolOutcome {
  const structured = {
    action: 'listed',
    written: false,
    projects: list.projects,
    total: list.total,
    hasMore: list.hasMore,
    note: `Neither projectId nor project was given, so ${nothing}. Call ${tool} again with a projectId from this list (or a project name).`,
  };
  const names = list.projects.map((p) => `"${p.name}" (${p.projectId})`).join(', ');
  return { text: `${structured.note} Your projects (${list.total}): ${names || 'none yet; create one with saveToProject action create'}.`, structured };
}

export function candidatesOutcome(
  tool: string,
  query: string,
  candidates: { projectId: string; name: string; lifecycleStatus: string }[],
  nothing: string,
): ToolOutcome {
  const structured = {
    action: 'candidates',
    written: false,
    query,
    candidates,
    note: `"${query}" matches ${candidates.length} of your projects, so none was chosen and ${nothing}. Call ${tool} again with the projectId of the one you mean.`,
  };
  return { text: `${structured.note} Candidates: ${candidates.map((c) => `"${c.name}" (${c.projectId})`).join(', ')}.`, structured };
}

/** A sentence and the answer: the dispatcher sends the answer as JSON text after the sentence. */
export function jsonOutcome(sentence: string, structured: Record<string, unknown>): ToolOutcome {
  return { text: sentence, structured };
}

const projectRow = z.looseObject({ projectId: z.string(), name: z.string() });

/**
 * The output fields every project tool may answer with besides its own: the caller's projects
 * (no identifier given) or the candidates (a name matching several). Tools extend this.
 */
export const projectChoiceOutput = {
  action: z.string().optional().describe('listed (your projects), candidates (a name matched several), or what the tool did.'),
  written: z.boolean().optional().describe('Whether anything was written.'),
  preview: z.boolean().optional().describe('True for a preview: nothing was written.'),
  projects: z.array(projectRow).optional().describe('action listed: your projects.'),
  total: z.number().optional(),
  hasMore: z.boolean().optional(),
  query: z.string().optional().describe('action candidates: the name given.'),
  candidates: z.array(projectRow).optional().describe('action candidates: the projects the name matches; call again with one projectId.'),
  note: z.string().optional().describe('What happened and what to do next, in a sentence.'),
  warnings: z.array(z.string()).optional(),
  receipt: z.looseObject({ receiptId: z.string() }).optional().describe('The stored receipt of a write.'),
};

/** Where a project's analysis stands (src/analysis/agent-status.ts), as getProjectContext and runFeasibilityAnalysis answer it. */
export const agentStatusOutput = z
  .looseObject({ status: z.enum(['none', 'queued', 'running', 'current', 'failed']), runId: z.string().optional(), inputsChanged: z.boolean().optional() })
  .describe('none, queued, running, current or failed; inputsChanged: true next to current when lots or rules changed since.');

/** One field a write changes (src/projects/receipts.ts FieldChange): its name, with its before and after values. */
export const fieldChangeOutput = z.looseObject({ field: z.string() }).describe('field, with before and after (its values, of any type).');
