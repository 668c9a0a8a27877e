// A refusal's next step (src/core/next-step.ts) worded for an agent: the tool to call and
// its arguments. The domain's own sentence names no tool; the MCP answer is that sentence and this step
// (what MCP clients have always read). The web words the same step as its buttons.
import type { SitelineError } from '../core/errors.ts';
import { nextStepOf } from '../core/next-step.ts';

/** The tool an agent uses for each receipt operation (the web's detach has no tool: its operation is named). */
const TOOL_OF_OPERATION: Record<string, string> = {
  'project.save': 'saveToProject',
  'project.update': 'updateProject',
  'project.map_listing': 'setProjectMapListing',
  'analysis.run': 'runFeasibilityAnalysis',
};

export function mcpRefusalText(err: SitelineError): string {
  const next = nextStepOf(err.details);
  if (!next) return err.message;
  const then = (s: string) => `${err.message} ${s}`;
  switch (next.action) {
    case 'attach_build_lot':
      return then(
        `Attach a build lot with saveToProject action attach_parcels (role build)${next.then === 'list_on_map' ? ', then call setProjectMapListing again' : next.then === 'run_analysis' ? ', then call runFeasibilityAnalysis again' : ''}.`,
      );
    case 'run_analysis':
      return then(
        `Call runFeasibilityAnalysis for it, wait until getProjectContext shows agentStatus current${next.then === 'produce_report' ? ', then call produceProjectReport again' : ''}.`,
      );
    case 'look_up_lot':
      return then('Copy parcelExternalId from a getFeasibilitySnapshot answer (lot.parcelExternalId).');
    case 'look_up_citation':
      return then('Copy sectionUuid from a citation (citations.<id>.sectionUuid) in a getFeasibilitySnapshot answer.');
    case 'clear_external_ref':
      return then('Clear it there first (updateProject externalRef: "") or use another.');
    case 'pick_update_receipt':
      return then('Pass the receiptId an updateProject write returned.');
    case 'not_reversible': {
      const d = err.details ?? {};
      const by = TOOL_OF_OPERATION[String(d['receiptOperation'])] ?? String(d['receiptOperation']);
      return `Receipt ${String(d['receiptId'])} is a ${by} ${next.receiptAction} receipt; only updateProject writes can be undone (saveToProject writes are not reversible on this surface).`;
    }
    // The sentence already says it (widen_radius names the radiusM to pass), or no tool does it (detach is the web's).
    default:
      return err.message;
  }
}
