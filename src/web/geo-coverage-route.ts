// GET /api/geo/coverage-status: a free coverage probe for a city or a point, under the LOCATION
// limit (30/min per IP, shared with cityInventory). Limited callers get 429 with Retry-After; every
// answer carries RateLimit-* headers so a client can pace itself.
//   ?city=Cambridge&region=MA | ?geoDivisionId=US-MA:cambridge | ?lat=42.37&lng=-71.10 (one spelling of a point: lat, lng)
import { clientIp } from '../http/client-ip.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { rateLimitHeaders } from '../http/respond.ts';
import { jsonReply, errorReply } from '../http/reply.ts';
import { badInput } from '../core/errors.ts';
import { pointSpellingProblem } from '../core/point-spelling.ts';
import { probeCoverage, validatePlaceQuery, type PlaceQuery } from '../snapshot/city-inventory.ts';
import { rateLimitMessage, takeLocationProbe } from '../ops/rate-limit.ts';

export const GEO_COVERAGE_PATH = '/api/geo/coverage-status';

/** Reads the query string into a place query; exactly one form is accepted. */
export function placeQueryFrom(url: URL): PlaceQuery {
  const p = url.searchParams;
  const city = p.get('city') ?? undefined;
  const id = p.get('geoDivisionId') ?? undefined;
  const wrong = pointSpellingProblem(p.keys());
  if (wrong) throw badInput(`${wrong} E.g. lat=42.37&lng=-71.10.`);
  const lat = p.get('lat') ?? undefined;
  const lon = p.get('lng') ?? undefined;
  const forms = [city !== undefined, id !== undefined, lat !== undefined || lon !== undefined].filter(Boolean).length;
  if (forms !== 1) throw badInput('Give exactly one of: city (optionally with region), geoDivisionId, or lat and lng.');
  if (city !== undefined) return { kind: 'name', city, region: p.get('region') ?? undefined };
  if (id !== undefined) return { kind: 'id', geoDivisionId: id };
  const latitude = Number(lat);
  const longitude = Number(lon);
  if (lat === undefined || lon === undefined || lat.trim() === '' || lon.trim() === '' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
    throw badInput('A point needs both lat and lng as decimal degrees, e.g. lat=42.37&lng=-71.10.');
  }
  return { kind: 'point', latitude, longitude };
}

export function registerGeoCoverageRoute(app: HttpApp, ctx: AppContext): void {
  app.pages.get(GEO_COVERAGE_PATH, async (c) => {
    const query = placeQueryFrom(new URL(c.req.url));
    validatePlaceQuery(query);
    const limit = await takeLocationProbe(ctx, clientIp(c.env.incoming, ctx.config));
    const headers = rateLimitHeaders(limit);
    if (!limit.allowed) {
      return errorReply(c, 429, 'rate_limited', rateLimitMessage(limit), { ...headers, 'retry-after': String(limit.resetSeconds) });
    }
    return jsonReply(c, 200, await probeCoverage(ctx, query), { ...headers, 'cache-control': 'no-store' });
  });
}
