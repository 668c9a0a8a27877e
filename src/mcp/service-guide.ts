// The guide (getServiceMcpGuide) and the server instructions (initialize, server/discover), built
// from the tool registry: every tool the registry holds is named with its access and purpose, so
// neither can fall behind the catalogue (registry.test.ts fails a tool without a purpose).
import type { McpToolDefinition } from './tool-definition.ts';

export interface GuideTool {
  name: string;
  title: string;
  access: 'public' | 'gated';
  /** True when the tool writes (its readOnlyHint is false). */
  writes: boolean;
  purpose: string;
}

export const GUIDE_WHAT =
  'This service turns one US or Canadian street address into a sourced site snapshot: the lot (parcel id, area, frontage, a point inside the lot), ' +
  'its zoning district(s) and overlays, permitted uses and a building envelope. Every value carries a provenance status; a value is "cited" only ' +
  'when it was read from the bylaw text or table itself, with its section. Signed-in users also keep projects (lots, a feasibility analysis, ' +
  'PDF reports, a public map listing) and can send feedback.';

export const GUIDE_SIGN_IN =
  'Public tools need no token. To sign in, simply call a gated tool such as getFeasibilitySnapshot: the endpoint answers HTTP 401 with a ' +
  'WWW-Authenticate header naming the protected-resource metadata, and an MCP client starts the browser OAuth flow from there. ' +
  'Agents without a browser can use the agent registration flow described in the authorization-server metadata (agent_auth). ' +
  'An expired or invalid token is refused on every call (never silently treated as anonymous): renew it and retry.';

/** How to report what the service answers. */
export const SAFETY_RULES = [
  'Report each value with its status. A null value means nothing without its status.',
  'not_extracted, conditional_unresolved, site_specific_schedule and missing mean UNKNOWN: never present them as "no limit" or as zero.',
  'no_limit_in_bylaw is a real answer: the bylaw sets no zone-level limit.',
  'unverified_default and defaulted values are indicative only; say so.',
  'answered: false is not an error: read coverage.status and coverage.message, and do not guess values for an uncovered address.',
  'The snapshot is site intelligence, not legal advice or a permit decision; point the user to the cited bylaw section and the city for confirmation.',
  'One address per getFeasibilitySnapshot call; do not loop over many addresses to scrape the service.',
] as const;

/** How to use the tools that write (every tool whose readOnlyHint is false). */
export const WRITE_RULES = [
  'Preview first: call a write tool with preview=true, show the user what would change, and write only after they agree.',
  'Confirm before a meter spend: produceProjectReport with confirm=true spends one export of the monthly allowance; ask the user first, every time.',
  'Never list a private site without the human: setProjectMapListing makes a site public to anyone; call it only when the user asked, and let the user answer its confirmation form themselves.',
  "Feedback only when the user asks: submitServiceFeedback sends the user's own words through a form they fill; never call it on your own initiative.",
  'Writes return a receipt; quote its receiptId to the user. Only updateProject can be undone (undoOperationId).',
] as const;

export function guideTools(tools: readonly McpToolDefinition[]): GuideTool[] {
  return tools.map((t) => ({ name: t.name, title: t.title, access: t.access, writes: !t.annotations.readOnlyHint, purpose: t.purpose }));
}

const instructionsCache = new WeakMap<readonly McpToolDefinition[], string>();

/** The server instructions: short, but naming every tool, its access and purpose, and the write rules. */
export function serverInstructions(tools: readonly McpToolDefinition[]): string {
  let text = instructionsCache.get(tools);
  if (!text) {
    const line = (t: GuideTool) => `${t.name}${t.writes ? ' (writes)' : ''}: ${t.purpose}`;
    const list = guideTools(tools);
    text = [
      'Sourced site intelligence for US and Canadian street addresses. Call getServiceMcpGuide first.',
      `Public tools (no token): ${list
        .filter((t) => t.access === 'public')
        .map(line)
        .join(' ')}`,
      `Gated tools (sign-in; calling one without a token starts OAuth): ${list
        .filter((t) => t.access === 'gated')
        .map(line)
        .join(' ')}`,
      'Report every value with its status: not_extracted is unknown, not "no limit".',
      `Rules for writes: ${WRITE_RULES.join(' ')}`,
    ].join('\n');
    instructionsCache.set(tools, text);
  }
  return text;
}
