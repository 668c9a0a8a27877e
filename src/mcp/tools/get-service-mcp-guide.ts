// getServiceMcpGuide: the first tool an agent calls. Describes the surface, how sign-in starts and
// the safety rules; asks its three first-contact questions, then answers for that caller. Static.
import { z } from 'zod';
import { defineTool, toolResult } from '../tool-definition.ts';

const ROLES = ['developer', 'gc', 'reviewer'] as const;
const MARKETS = ['US', 'CA'] as const;
const SCALES = ['single_parcel', 'portfolio'] as const;

const SURFACE = {
  what:
    'This service turns one US or Canadian street address into a sourced site snapshot: the lot (parcel id, area, frontage, a point inside the lot), ' +
    'its zoning district(s) and overlays, permitted uses and a building envelope. Every value carries a provenance status; a value is "cited" only ' +
    'when it was read from the bylaw text or table itself, with its section.',
  publicTools: [
    'getServiceMcpGuide: this guide.',
    'explainFeasibilityStatus: what a status such as not_extracted or no_limit_in_bylaw means.',
    'cityInventory: what the service holds for a city (by name or by point): layers, districts, rule coverage, vintage, licence.',
    'previewSiteCoverage: whether one address is covered and whether a lot and zone were found (no zoning values).',
  ],
  gatedTools: [
    'getFeasibilitySnapshot: the full snapshot for one address (needs sign-in).',
    'submitServiceFeedback: sends the user\'s own feedback through a form, only when they ask (needs sign-in).',
  ],
  signIn:
    'Public tools need no token. To sign in, simply call a gated tool such as getFeasibilitySnapshot: the endpoint answers HTTP 401 with a ' +
    'WWW-Authenticate header naming the protected-resource metadata, and an MCP client starts the browser OAuth flow from there. ' +
    'Agents without a browser can use the agent registration flow described in the authorization-server metadata (agent_auth). ' +
    'An expired or invalid token is refused on every call (never silently treated as anonymous): renew it and retry.',
  safetyRules: [
    'Report each value with its status. A null value means nothing without its status.',
    'not_extracted, conditional_unresolved, site_specific_schedule and missing mean UNKNOWN: never present them as "no limit" or as zero.',
    'no_limit_in_bylaw is a real answer: the bylaw sets no zone-level limit.',
    'unverified_default and defaulted values are indicative only; say so.',
    'answered: false is not an error: read coverage.status and coverage.message, and do not guess values for an uncovered address.',
    'The snapshot is site intelligence, not legal advice or a permit decision; point the user to the cited bylaw section and the city for confirmation.',
    'One address per getFeasibilitySnapshot call; do not loop over many addresses to scrape the service.',
  ],
};

const QUESTIONS = [
  { param: 'role', question: 'Who is asking: a developer, a general contractor (gc) or a plan reviewer?', options: [...ROLES] },
  { param: 'market', question: 'Is the site in the US or in Canada (CA)?', options: [...MARKETS] },
  { param: 'scale', question: 'One site (single_parcel) or several (portfolio)?', options: [...SCALES] },
];

const ROLE_ADVICE: Record<(typeof ROLES)[number], string> = {
  developer:
    'Start with previewSiteCoverage to check the address is covered, then getFeasibilitySnapshot with source "full" for the lot, zone, permitted uses and envelope. Quote the envelope values with their statuses and citations.',
  gc: 'Use getFeasibilitySnapshot with source "setback_lookup" or "height_limit_lookup" for the question at hand (the payload is the same; the source is used for attribution). Setbacks and heights that are not cited must be confirmed with the city before work is priced.',
  reviewer:
    'Use getFeasibilitySnapshot and check each value\'s citation (section, source, date). explainFeasibilityStatus explains any status you are unsure of; not_extracted is unknown, not unlimited.',
};

const MARKET_ADVICE: Record<(typeof MARKETS)[number], string> = {
  US: 'US coverage is by city; call cityInventory with the city name to see what is loaded and how current it is.',
  CA: 'Canadian coverage is by municipality; call cityInventory with the municipality name. Addresses outside coverage come back with answered: false and the reason.',
};

const SCALE_ADVICE: Record<(typeof SCALES)[number], string> = {
  single_parcel: 'One address per call is exactly how getFeasibilitySnapshot works.',
  portfolio:
    'getFeasibilitySnapshot takes one address per call and does no search or comparison: call it once per site, and check coverage per city first with cityInventory. Capability probes share a limit of 30 per minute per IP.',
};

export const getServiceMcpGuide = defineTool({
  name: 'getServiceMcpGuide',
  title: 'Service guide',
  description:
    'Call this first. Describes what this site-intelligence service offers, which tools are public and which need sign-in, how sign-in starts ' +
    '(call a gated tool and follow the 401), and the safety rules for reporting values with their provenance status. ' +
    'Called with no arguments it returns the guide plus three first-contact questions (role, market, scale): ask the user, then call again ' +
    'with the answers to get advice for that caller. No database or third-party call.',
  input: z.object({
    role: z.enum(ROLES).optional().describe('Who is asking: developer, gc (general contractor) or reviewer.'),
    market: z.enum(MARKETS).optional().describe('Country of the site: US or CA.'),
    scale: z.enum(SCALES).optional().describe('single_parcel for one site, portfolio for several.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'public',
  async handler({ role, market, scale }) {
    const unanswered = QUESTIONS.filter((q) => ({ role, market, scale })[q.param as 'role' | 'market' | 'scale'] === undefined);
    const advice = [role ? ROLE_ADVICE[role] : null, market ? MARKET_ADVICE[market] : null, scale ? SCALE_ADVICE[scale] : null].filter(
      (s): s is string => s !== null,
    );
    const structured = {
      surface: SURFACE,
      caller: { role: role ?? null, market: market ?? null, scale: scale ?? null },
      advice,
      firstContactQuestions: unanswered,
    };
    const lines = [SURFACE.what, SURFACE.signIn, `Safety rules: ${SURFACE.safetyRules.join(' ')}`];
    if (advice.length) lines.push(`For you: ${advice.join(' ')}`);
    if (unanswered.length) {
      lines.push(`Before going further, ask the user: ${unanswered.map((q) => q.question).join(' ')} Then call getServiceMcpGuide again with ${unanswered.map((q) => q.param).join(', ')}.`);
    }
    return toolResult(structured, lines.join('\n\n'));
  },
});
