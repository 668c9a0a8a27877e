// cityInventory: what the service holds for a city (by name, geoDivisionId or point). Its probes
// count against the LOCATION limit shared with /api/geo/coverage-status.
import { z } from 'zod';
import { cityInventory as inventoryOf, validatePlaceQuery, type PlaceQuery } from '../../snapshot/city-inventory.ts';
import { rateLimitMessage, takeLocationProbe } from '../../ops/rate-limit.ts';
import { defineTool, toolError, toolResult } from '../tool-definition.ts';
import { placeStatusWords } from '../../core/status-words.ts';
import type { Status } from '../../core/statuses.ts';

/** The place's coverage first, worded as the coverage page words it: a place that is not live says why. */
function placeLine(status: Status, reason: string | null): string {
  if (status === 'live') return 'is live.';
  const w = placeStatusWords(status, reason);
  return `is ${w.label} (${status}): ${w.why.replace(/\.?$/, '.')}`;
}

export const cityInventory = defineTool({
  name: 'cityInventory',
  title: 'City inventory',
  description:
    'What the service holds for one US or Canadian city: coverage status, data layers grouped by kind (boundary, lots, addresses, zoning) ' +
    'with vintage and licence, the zoning districts and how many have extracted rules, and counts of rule statuses. ' +
    'Give exactly one of: city (with optional region, e.g. city "Cambridge", region "MA"), geoDivisionId (e.g. "US-MA:cambridge", from a previous result), ' +
    'or lat + lng (decimal degrees; latitude/longitude/lon are refused with the right name). When a name matches several places the result lists candidates with their geoDivisionId: pick one and call again. ' +
    'With district (a code the inventory lists, e.g. "NR"), the result also carries that district\'s rules in full: every value with its status and, when cited, ' +
    "the citation (document, section, the bylaw's words verbatim, and href, the service's page showing the quote in its section). " +
    'Internal slugs such as "cambridge-ma" are refused. For a city without data the result says how to record demand; this tool records nothing. ' +
    'Limited to 30 lookups per minute per IP (shared with the coverage-status API).',
  input: z.object({
    city: z.string().min(1).max(120).optional().describe('City name, e.g. "Cambridge". Not a slug.'),
    region: z.string().min(2).max(60).optional().describe('State or province code or name, e.g. "MA" or "British Columbia". Narrows a city name.'),
    geoDivisionId: z.string().min(3).max(120).optional().describe('A geoDivisionId returned by this tool, e.g. "US-MA:cambridge".'),
    lat: z.number().min(-90).max(90).optional().describe('Latitude of a point in the city (WGS 84, decimal degrees), with lng.'),
    lng: z.number().min(-180).max(180).optional().describe('Longitude of a point in the city (WGS 84, decimal degrees), with lat.'),
    district: z.string().min(1).max(40).optional().describe('A district code of the place, e.g. "NR": its rules in full, each cited value with its quote.'),
  }),
  purpose: 'What the service holds for a city (by name, geoDivisionId or point): coverage, layers, districts, rule coverage, vintage, licences.',
  output: z.looseObject({
    kind: z.enum(['inventory', 'candidates', 'unmapped']).describe('inventory (one place), candidates (pick a geoDivisionId and call again) or unmapped.'),
    message: z.string().optional(),
    place: z.looseObject({ geoDivisionId: z.string(), name: z.string(), region: z.string(), country: z.string(), status: z.string() }).optional(),
    layers: z.record(z.string(), z.unknown()).optional(),
    zoning: z.looseObject({ baseDistricts: z.number(), overlayDistricts: z.number(), districts: z.array(z.record(z.string(), z.unknown())) }).optional(),
    rules: z.record(z.string(), z.unknown()).optional(),
    vintage: z.looseObject({ oldest: z.string().nullable(), newest: z.string().nullable() }).optional(),
    licences: z.array(z.string()).optional(),
    candidates: z.array(z.looseObject({ geoDivisionId: z.string(), name: z.string(), region: z.string() })).optional(),
    recordDemand: z.string().optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'public',
  async handler(input, call) {
    const modes = [input.city !== undefined, input.geoDivisionId !== undefined, input.lat !== undefined || input.lng !== undefined].filter(Boolean).length;
    if (modes !== 1) {
      return toolError('Give exactly one of: city (optionally with region), geoDivisionId, or lat and lng together.');
    }
    let query: PlaceQuery;
    if (input.city !== undefined) query = { kind: 'name', city: input.city, region: input.region };
    else if (input.geoDivisionId !== undefined) query = { kind: 'id', geoDivisionId: input.geoDivisionId };
    else if (input.lat === undefined || input.lng === undefined) return toolError('A point needs both lat and lng.');
    else query = { kind: 'point', latitude: input.lat, longitude: input.lng };
    if (input.district !== undefined) query.district = input.district;
    validatePlaceQuery(query); // a refused slug or a malformed query is not a probe: it does not count

    const limit = await takeLocationProbe(call.ctx, call.clientIp);
    if (!limit.allowed) {
      return toolError(rateLimitMessage(limit), {
        error: { code: 'rate_limited', retryAfterSeconds: limit.resetSeconds, limit: limit.limit, windowSeconds: limit.windowSeconds },
      });
    }
    const result = await inventoryOf(call.ctx, query);
    if (result.kind === 'candidates') {
      return toolResult({ ...result }, `${result.message} ${result.candidates.map((c) => `${c.name}, ${c.region} (${c.geoDivisionId})`).join('; ')}.`);
    }
    if (result.kind === 'unmapped') return toolResult({ ...result }, `${result.message} ${result.recordDemand}`);
    const p = result.place;
    const ruled = result.zoning.districts.filter((d) => d.rulesCovered).length;
    return toolResult(
      { ...result },
      `${p.name}, ${p.region} (${p.geoDivisionId}) ${placeLine(p.status, p.statusReason)} ${result.zoning.baseDistricts} base zoning districts (${ruled} with rules), ` +
        `${result.zoning.overlayDistricts} overlays; layers vintage ${result.vintage.oldest ?? '?'} to ${result.vintage.newest ?? '?'}; licences: ${result.licences.join(', ') || 'none'}. ` +
        `${result.rules.citedValues} values cited from ${result.rules.documents.map((d) => d.title).join(', ') || 'no held document'}, each verified against its words` +
        (result.rules.district
          ? `; district ${result.rules.district.code} (${result.rules.district.name}) in full: ${result.rules.district.citedValues} cited values.`
          : '.'),
    );
  },
});
