// getServiceMcpGuide: the first tool an agent calls. Describes the surface, how sign-in starts and
// the safety rules; asks its three first-contact questions, then answers for that caller. Static.
// Its tool list is the registry the server was built with (service-guide.ts), never a hand-kept list.
import { z } from 'zod';
import { defineTool, toolResult } from '../tool-definition.ts';
import { GUIDE_SIGN_IN, GUIDE_WHAT, SAFETY_RULES, WRITE_RULES, guideTools } from '../service-guide.ts';

const ROLES = ['developer', 'gc', 'reviewer'] as const;
const MARKETS = ['US', 'CA'] as const;
const SCALES = ['single_parcel', 'portfolio'] as const;

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
    "Use getFeasibilitySnapshot and check each value's citation (section, source, date). explainFeasibilityStatus explains any status you are unsure of; not_extracted is unknown, not unlimited.",
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
    'Call this first. Describes what this site-intelligence service offers, every tool (public or gated, what each is for, whether it writes), how sign-in starts ' +
    '(call a gated tool and follow the 401), the safety rules for reporting values with their provenance status, and the rules for writes ' +
    '(preview first, confirm before a meter spend, never list a private site without the human, feedback only when the user asks). ' +
    'Called with no arguments it returns the guide plus three first-contact questions (role, market, scale): ask the user, then call again ' +
    'with the answers to get advice for that caller. No database or third-party call.',
  input: z.object({
    role: z.enum(ROLES).optional().describe('Who is asking: developer, gc (general contractor) or reviewer.'),
    market: z.enum(MARKETS).optional().describe('Country of the site: US or CA.'),
    scale: z.enum(SCALES).optional().describe('single_parcel for one site, portfolio for several.'),
  }),
  purpose: 'This guide: every tool, what it is for, how sign-in starts, the rules for reporting values and for writes. Call it first.',
  output: z.object({
    surface: z.looseObject({
      what: z.string(),
      tools: z.array(z.object({ name: z.string(), title: z.string(), access: z.enum(['public', 'gated']), writes: z.boolean(), purpose: z.string() })),
      signIn: z.string(),
      safetyRules: z.array(z.string()),
      writeRules: z.array(z.string()),
    }),
    caller: z.object({ role: z.enum(ROLES).nullable(), market: z.enum(MARKETS).nullable(), scale: z.enum(SCALES).nullable() }),
    advice: z.array(z.string()),
    firstContactQuestions: z.array(z.object({ param: z.string(), question: z.string(), options: z.array(z.string()) })),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'public',
  async handler({ role, market, scale }, call) {
    const unanswered = QUESTIONS.filter((q) => ({ role, market, scale })[q.param as 'role' | 'market' | 'scale'] === undefined);
    const advice = [role ? ROLE_ADVICE[role] : null, market ? MARKET_ADVICE[market] : null, scale ? SCALE_ADVICE[scale] : null].filter(
      (s): s is string => s !== null,
    );
    const tools = guideTools(call.tools);
    const structured = {
      surface: { what: GUIDE_WHAT, tools, signIn: GUIDE_SIGN_IN, safetyRules: [...SAFETY_RULES], writeRules: [...WRITE_RULES] },
      caller: { role: role ?? null, market: market ?? null, scale: scale ?? null },
      advice,
      firstContactQuestions: unanswered,
    };
    const gated = tools.filter((t) => t.access === 'gated').length;
    const lines = [
      `The guide: ${tools.length} tools (${tools.length - gated} public, ${gated} need sign-in), each with its purpose; sign-in; ${SAFETY_RULES.length} rules for reporting values and ${WRITE_RULES.length} for writes.`,
    ];
    if (advice.length) lines.push(`For you: ${advice.join(' ')}`);
    if (unanswered.length) {
      lines.push(
        `Before going further, ask the user: ${unanswered.map((q) => q.question).join(' ')} Then call getServiceMcpGuide again with ${unanswered.map((q) => q.param).join(', ')}.`,
      );
    }
    return toolResult(structured, lines.join(' '));
  },
});
