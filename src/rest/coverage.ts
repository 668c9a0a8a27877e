// GET /api/v1/coverage: is an address, a city or a point covered? Free. Exactly one of: address; city
// (with an optional region); geoDivisionId; lat and lng. With district, the district's rules; with
// changesSince, the imports that changed the place's zoning since that date.
import type { z } from 'zod';
import { createRoute } from '@hono/zod-openapi';
import type { AppContext } from '../context.ts';
import { POINT_MISSPELLINGS } from '../core/point-spelling.ts';
import type { Coverage } from '../core/snapshot-types.ts';
import { resolveCoverage } from '../snapshot/coverage.ts';
import { cityInventory, probeCoverage, type PlaceSummary } from '../snapshot/city-inventory.ts';
import type { DistrictRulesView } from '../rules/district-view.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import { changeItemsSince, vintagesSince, type VintageRecord } from '../importer/update-place.ts';
import { CoverageQuery } from './schemas.ts';
import { API_PREFIX, CREDITS_CHARGED, json, type RestApi, type RestContext, type RestKit, bind } from './kit.ts';
import { common401_429, EXAMPLE_ADDRESS, json as jsonResponse, problem, rateHeaders, withExample } from './openapi-parts.ts';

export const COVERAGE_PATH = `${API_PREFIX}/coverage`;

export const coverageRoute = createRoute({
  method: 'get',
  path: COVERAGE_PATH,
  operationId: 'coverage',
  summary: 'Is an address, a city or a point covered? (free)',
  description:
    'Exactly one of: address; city (with an optional region); lat and lng. The coverage block and the place status, no lot data. A point is spelled lat and lng only: latitude, longitude or lon is a 400 naming the right parameter.',
  request: { query: withExample(CoverageQuery, { address: EXAMPLE_ADDRESS }) },
  responses: { '200': jsonResponse('CoverageAnswer', 'The coverage verdict.', rateHeaders), '400': problem('bad_request'), ...common401_429 },
});

export function registerCoverage(api: RestApi, kit: RestKit): void {
  const { ctx } = kit;
  /** One spelling of a point (lat, lng): another is refused by name, never silently ignored. */
  async function pointSpelling(c: RestContext, next: () => Promise<void>): Promise<Response | void> {
    const misspelled = Object.keys(c.req.query()).filter((k) => Object.hasOwn(POINT_MISSPELLINGS, k));
    if (misspelled.length) {
      const errors = misspelled.map((k) => ({ path: k, message: `a point is given as lat and lng: "${k}" is spelled "${POINT_MISSPELLINGS[k]}" here` }));
      return kit.problem(c, 'bad_request', errors.map((e) => `${e.path}: ${e.message}`).join('; '), c.get('authed').limit, { errors });
    }
    await next();
  }
  bind(
    api,
    { ...coverageRoute, middleware: [kit.authenticate, pointSpelling] },
    async (c) => json(200, await coverageAnswer(ctx, c.req.valid('query')), { ...c.get('authed').limit, [CREDITS_CHARGED]: '0' }),
    kit.invalidHook(),
  );
}

/** The CoverageAnswer schema's shape. */
interface CoverageAnswerBody {
  query: string;
  coverage: Omit<Coverage, 'status'> & { status: Coverage['status'] | 'ambiguous' };
  placeStatus: string | null;
  candidates?: PlaceSummary[];
  rules?: DistrictRulesView;
  changes?: VintageRecord[];
}

async function coverageAnswer(ctx: AppContext, q: z.infer<typeof CoverageQuery>): Promise<CoverageAnswerBody> {
  if (q.address !== undefined) {
    const step = await resolveCoverage(ctx, parseAddress(q.address));
    if (step.kind === 'not_covered') return { query: q.address, coverage: step.coverage, placeStatus: step.place?.status ?? null };
    const p = step.place;
    return {
      query: q.address,
      coverage: {
        status: 'live',
        eligibilityKnown: true,
        geoDivisionId: p.geoDivisionId,
        place: { name: p.name, region: p.region, country: p.country },
        message: `${p.name}, ${p.region} is covered: a snapshot for this address is answered when the address matches a lot (answered:false is free).`,
      },
      placeStatus: p.status,
    };
  }
  const probe = await probeCoverage(
    ctx,
    q.city !== undefined
      ? { kind: 'name', city: q.city, region: q.region }
      : q.geoDivisionId !== undefined
        ? { kind: 'id', geoDivisionId: q.geoDivisionId }
        : { kind: 'point', latitude: q.lat!, longitude: q.lng! },
  );
  const place = probe.place;
  let rules: DistrictRulesView | undefined;
  if (q.district !== undefined && place) {
    const inv = await cityInventory(ctx, { kind: 'id', geoDivisionId: place.geoDivisionId, district: q.district });
    if (inv.kind === 'inventory') rules = inv.rules.district;
  }
  return {
    query: probe.query,
    coverage: {
      status: probe.status,
      eligibilityKnown: probe.eligibilityKnown,
      message: probe.message,
      ...(place ? { geoDivisionId: place.geoDivisionId, place: { name: place.name, region: place.region, country: place.country } } : {}),
    },
    placeStatus: place?.status ?? null,
    ...(probe.candidates ? { candidates: probe.candidates } : {}),
    ...(rules ? { rules } : {}),
    // Which lots changed zoning since a date: the change log of each import since then (data update).
    // By our import date (the default) or the town's vintage date (changesBy=vintage); every lot and address change, paged.
    ...(q.changesSince !== undefined && place
      ? {
          changes: await vintagesSince(ctx, place.geoDivisionId, q.changesSince, q.changesBy ?? 'import'),
          changeItems: await changeItemsSince(ctx, place.geoDivisionId, {
            since: q.changesSince,
            by: q.changesBy ?? 'import',
            page: q.changesPage ?? 1,
            pageSize: q.changesPageSize ?? 100,
          }),
        }
      : {}),
  };
}
