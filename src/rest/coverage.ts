// GET /api/v1/coverage: is an address, a city or a point covered? Free. Exactly one of: address; city
// (with an optional region); geoDivisionId; lat and lng. With district, the district's rules; with
// changesSince, the imports that changed the place's zoning since that date.
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import { POINT_MISSPELLINGS } from '../core/point-spelling.ts';
import type { Coverage } from '../core/snapshot-types.ts';
import { resolveCoverage } from '../snapshot/coverage.ts';
import { cityInventory, probeCoverage, type PlaceSummary } from '../snapshot/city-inventory.ts';
import type { DistrictRulesView } from '../rules/district-view.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import { listVintages, type VintageRecord } from '../importer/update-place.ts';
import { sendProblem } from './problem.ts';
import { CoverageQuery } from './schemas.ts';
import { API_PREFIX, CREDITS_CHARGED, sendJsonBody, type RestKit } from './kit.ts';
import { common401_429, EXAMPLE_ADDRESS, json, problem, queryParameters, rateHeaders, withExamples, type PathItemsOf } from './openapi-parts.ts';

export const COVERAGE_PATH = `${API_PREFIX}/coverage`;

export function registerCoverage(kit: RestKit): void {
  const { ctx } = kit;
  kit.route(COVERAGE_PATH, {
    GET: async (req, res) => {
      const authed = await kit.authenticate(req, res);
      if (!authed) return;
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      // One spelling of a point (lat, lng): another is refused by name, never silently ignored.
      const misspelled = [...params.keys()].filter((k) => Object.hasOwn(POINT_MISSPELLINGS, k));
      if (misspelled.length) {
        const errors = misspelled.map((k) => ({ path: k, message: `a point is given as lat and lng: "${k}" is spelled "${POINT_MISSPELLINGS[k]}" here` }));
        return sendProblem(ctx, req, res, 'bad_request', errors.map((e) => `${e.path}: ${e.message}`).join('; '), authed.limit, { errors });
      }
      const parsed = CoverageQuery.safeParse(Object.fromEntries(params));
      if (!parsed.success) return kit.invalid(req, res, parsed.error, authed.limit);
      sendJsonBody(res, 200, await coverageAnswer(ctx, parsed.data), { ...authed.limit, [CREDITS_CHARGED]: '0' });
    },
  });
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
    ...(q.changesSince !== undefined && place ? { changes: (await listVintages(ctx, place.geoDivisionId)).filter((v) => v.importedAt.slice(0, 10) >= q.changesSince!) } : {}),
  };
}

export const coveragePaths: PathItemsOf = (_ctx, query) => ({
  [COVERAGE_PATH]: {
    get: {
      operationId: 'coverage',
      summary: 'Is an address, a city or a point covered? (free)',
      description: 'Exactly one of: address; city (with an optional region); lat and lng. The coverage block and the place status, no lot data. A point is spelled lat and lng only: latitude, longitude or lon is a 400 naming the right parameter.',
      parameters: withExamples(queryParameters(query.CoverageQuery!, false), { address: EXAMPLE_ADDRESS }),
      responses: { '200': json('CoverageAnswer', 'The coverage verdict.', rateHeaders), '400': problem('bad_request'), ...common401_429 },
    },
  },
});
