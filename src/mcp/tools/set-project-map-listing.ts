// setProjectMapListing (gated, write): list or unlist a project on the public map. Listing a site that
// is not public knowledge yet asks the human first: a form on 2026-07-28; the 2025 leg cannot carry a
// form, so it says so and points to the web project page's confirmation. Unlisting needs no form.
import { z } from 'zod';
import { defineTool, noFormReason, toolError, type ToolOutcome } from '../tool-definition.ts';
import { setProjectMapListing as setListing, type PublicListing } from '../../projects/map-listing.ts';
import { callerAccount, candidatesOutcome, jsonOutcome, listedOutcome, projectChoiceOutput } from '../project-results.ts';

const LISTING_FORM_KEY = 'mapListing';

export const setProjectMapListing = defineTool({
  name: 'setProjectMapListing',
  title: 'List a project on the public map',
  description:
    'Lists (listed=true) or unlists (listed=false) one of your projects on the public map at /map, which anyone can see without signing in. ' +
    "A listed project shows only: a pin at its build lot's centroid, its name, zone category, typology and lifecycle status. A project without a build lot cannot be listed. " +
    'Identify the project by projectId or project (name); with neither, it lists your projects and publishes nothing. ' +
    'preview=true returns the current state, the exact pin, what would be shown and any privacy warning, and writes nothing. ' +
    'Every listing (a first one, one after an unlisting, a moved pin) asks the user to confirm through a form (2026-07-28 clients with elicitation; others get the web page to confirm on); call it only when the user asked to list. ' +
    'Unlisting removes the pin; what was public meanwhile is not un-shared.',
  input: z.object({
    projectId: z.string().optional().describe('Project UUID.'),
    project: z.string().optional().describe('Project name (case-insensitive; exact beats partial).'),
    listed: z.boolean().describe('true lists the project on the public map, false removes it.'),
    preview: z.boolean().describe('true: return the current state, the exact pin and privacy warnings; write nothing.'),
  }),
  purpose: 'Lists or unlists a project on the public map; listing asks the human through a form; preview first.',
  output: z.looseObject({
    ...projectChoiceOutput,
    listed: z.boolean().optional(),
    project: z.looseObject({ projectId: z.string(), name: z.string() }).optional(),
    listing: z.record(z.string(), z.unknown()).optional(),
    wouldShow: z.record(z.string(), z.unknown()).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  access: 'gated',
  async handler(args, call) {
    const accountId = callerAccount(call);
    const response = call.inputResponses?.[LISTING_FORM_KEY] as { action?: unknown; content?: unknown } | undefined;
    const accepted = response?.action === 'accept' && (response.content as Record<string, unknown> | undefined)?.['confirm'] === true;
    const out = await setListing(call.ctx, accountId, { ...args, confirmedByHuman: accepted });
    if (out.kind === 'list') return listedOutcome('setProjectMapListing', out.list, 'nothing was published');
    if (out.kind === 'candidates') return candidatesOutcome('setProjectMapListing', out.query, out.candidates, 'nothing was published');
    if (out.kind === 'result') {
      const r = out.result;
      const sentence = r['preview']
        ? 'Preview; nothing was written.'
        : r['written']
          ? `${args.listed ? 'Listed on the public map' : 'Unlisted'} (receipt ${(r['receipt'] as { receiptId: string }).receiptId}).`
          : 'Nothing changed.';
      return jsonOutcome(sentence, r);
    }
    // A site not yet public knowledge: the human decides.
    const pageUrl = `${call.ctx.config.baseUrl}/projects/${out.project.project_id}`;
    if (!call.canElicit)
      return toolError(
        `Listing "${out.project.name}" publishes a site that is not public knowledge, so the user must confirm it, and ${noFormReason(call.era)}. Nothing was published. ` +
          `The user can confirm on the web project page ${pageUrl} (signed in), or the client can connect with MCP protocol 2026-07-28, declare the elicitation capability and call setProjectMapListing again.`,
        {
          written: false,
          listed: false,
          confirmUrl: pageUrl,
          wouldShow: out.wouldShow,
          warnings: out.warnings,
          error: { code: 'elicitation_unavailable', requiredProtocolVersion: '2026-07-28', requiredCapability: 'elicitation', finishAt: pageUrl },
        },
      );
    if (response && !accepted) {
      const how = response.action === 'decline' ? 'declined' : response.action === 'cancel' ? 'cancelled' : 'did not confirm';
      return jsonOutcome(`The user ${how} listing "${out.project.name}". Nothing was published.`, {
        written: false,
        listed: false,
        action: how,
        wouldShow: out.wouldShow,
      });
    }
    return askForm(out.project.name, out.wouldShow, out.warnings);
  },
});

function askForm(name: string, show: PublicListing, warnings: string[]): ToolOutcome {
  const message =
    `List "${name}" on siteline's public map? Anyone, signed in or not, will see a pin at (${show.pin.lat}, ${show.pin.lng}) with: ` +
    `name "${show.name}", zone category ${show.zoneCategory}, typology ${show.typology}, lifecycle status ${show.lifecycleStatus}. ${warnings.join(' ')}`;
  return {
    text: message,
    formRequest: {
      key: LISTING_FORM_KEY,
      message,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Yes, make this site public on the map', default: false } },
        required: ['confirm'],
      },
    },
  };
}
