// getFeasibilitySnapshot (gated): the sourced snapshot for one address. The payload is the same
// for every `source`; the source goes to attribution (_meta and the log) and the link back.
import { z } from 'zod';
import { addressInput } from '../address-input.ts';
import { cachedSnapshot } from '../../snapshot/answer-cache.ts';
import { snapshotSummary } from '../../snapshot/summary.ts';
import { withSourcesInline } from '../../places/source-catalogue.ts';
import { defineTool } from '../tool-definition.ts';

export const SNAPSHOT_SOURCES = ['zoning_lookup', 'lot_dimensions', 'setback_lookup', 'height_limit_lookup', 'full'] as const;

export const getFeasibilitySnapshot = defineTool({
  name: 'getFeasibilitySnapshot',
  title: 'Feasibility snapshot',
  description:
    'The sourced site snapshot for ONE US or Canadian street address (no search, no comparison): the lot (parcelExternalId, area, frontage, ' +
    'a point inside the lot), its zoning district(s) and overlays, permitted uses, and the building envelope. Every value is an object with ' +
    'value and status; a null value means nothing without its status (not_extracted = unknown, never "no limit"). ' +
    'Outside coverage the call still succeeds with answered: false and a coverage block saying why. ' +
    'Sources, citations and shared notes are defined once (sources, citations, notes) and named by id on each value; sources ' +
    "gives each source's label, the place's catalogue (sourceCatalogue.url, a path on this server) its vintage, licence and URL: set includeSources to get those inline. " +
    'Set source to the question being answered (zoning_lookup, lot_dimensions, setback_lookup, height_limit_lookup or full); ' +
    'the payload is identical for every source, which is used for attribution. Requires sign-in: called without a token it answers 401 and the client starts OAuth.',
  input: z.object({
    address: addressInput('One street address in Canada or the US, e.g. "57 Inman St, Cambridge, MA".'),
    source: z.enum(SNAPSHOT_SOURCES).describe('Which question is being answered; used for attribution and the link back. The payload is the same for every value.'),
    includeSources: z.boolean().optional().describe("True: the place's source catalogue inline (sourceCatalogue.sources: every source in full, with vintage, licence, attribution, URL). Default false: labels and the catalogue's path."),
  }),
  purpose: 'The full sourced snapshot for one address: lot, zoning, permitted uses and the building envelope, every value with its status.',
  output: z.looseObject({
    answered: z.boolean().describe('false: outside coverage; read coverage.status and coverage.message.'),
    coverage: z.looseObject({ status: z.string(), eligibilityKnown: z.boolean(), message: z.string() }),
    address: z.record(z.string(), z.unknown()).optional(),
    lot: z.looseObject({ parcelExternalId: z.string(), latitude: z.number(), longitude: z.number(), areaM2: z.number(), areaSqft: z.number() }).optional(),
    zones: z.looseObject({ primary: z.string().nullable(), districts: z.array(z.record(z.string(), z.unknown())), splitLot: z.boolean() }).optional(),
    permittedUses: z.array(z.looseObject({ use: z.string(), permission: z.string(), status: z.string() })).optional(),
    envelope: z.record(z.string(), z.looseObject({ value: z.union([z.number(), z.string(), z.null()]), status: z.string() })).optional().describe('Every value with value and status; citation and notes by id.'),
    sources: z.record(z.string(), z.string()),
    sourceCatalogue: z.looseObject({ url: z.string() }).optional(),
    attribution: z.array(z.string()).optional(),
    citations: z.record(z.string(), z.looseObject({ document: z.string(), section: z.string(), quote: z.string() })).optional(),
    notes: z.record(z.string(), z.string()).optional(),
    suggestions: z.array(z.string()).optional(),
    generatedAt: z.string(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  access: 'gated',
  async handler({ address, source, includeSources }, call) {
    const entry = await cachedSnapshot(call.ctx, address);
    const snapshot = includeSources ? await withSourcesInline(call.ctx, entry.snapshot) : entry.snapshot;
    const link = `${call.ctx.config.baseUrl}/sites?${new URLSearchParams({ address, ref: `mcp-${source}` }).toString()}`;
    call.ctx.logger.info({ requestId: call.requestId, tool: 'getFeasibilitySnapshot', source, answered: snapshot.answered }, 'snapshot served');
    // A one-line summary, then the whole answer as JSON text (made once per cache entry) for text-only clients.
    return {
      text: snapshotSummary(snapshot),
      structured: snapshot as unknown as Record<string, unknown>,
      ...(includeSources ? {} : { json: entry.json }),
      meta: { 'siteline/attribution': { source, link, generatedAt: snapshot.generatedAt } },
    };
  },
});
