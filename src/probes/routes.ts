// /healthz (the process is alive: no database, no places), /readyz (able to answer: the database
// answers, every live default place is loaded, not draining; 503 with the reason otherwise, and
// `places_loading` with Retry-After while this start is still importing a live place; each place
// says whether it is ready and where it is in the start's import) and
// /metrics (Prometheus text; a bearer token from SITELINE_METRICS_TOKEN, or, with none set, only on a
// loopback base URL to requests from this machine, else 404). Load balancers probe by address, so
// these three answer whatever the Host header says (src/http/server.ts). The probes surface: what load
// balancers and Prometheus ask, mounted by src/app.ts like every other surface.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { errorReply, jsonReply } from '../http/reply.ts';
import { loadAllManifests } from '../places/manifest.ts';
import { defaultPlaceStates, howToLoad } from '../importer/default-places.ts';
import { LOADING_RETRY_AFTER_SECONDS, startupLoadOf } from '../places/place-loading.ts';
import { sameSecret } from '../auth/secrets.ts';
import { fromLoopbackPeer } from '../http/client-ip.ts';
import { isLoopbackUrl } from '../config.ts';

const NO_STORE = { 'cache-control': 'no-store' };

// Long because: a registrar declares one family of routes on the router, each route a short handler of its own.
export function mountRoutes(app: HttpApp, ctx: AppContext): void {
  const manifests = loadAllManifests(ctx.config.placesDir);
  const startedAt = Date.now();

  app.pages.get('/healthz', (c) => {
    return jsonReply(c, 200, { status: 'alive', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) }, NO_STORE);
  });

  app.pages.get('/readyz', async (c) => {
    if (ctx.lifecycle?.draining) {
      return jsonReply(
        c,
        503,
        { status: 'unavailable', reason: 'shutting_down', message: 'This instance is shutting down (SIGTERM): send new requests to another.' },
        NO_STORE,
      );
    }
    // While this start imports places on embedded PGlite, a query waits for the import's transaction:
    // the answer then comes from what the loader knows (the database is this process's own).
    const load = startupLoadOf(ctx.db);
    const loading = load && !load.done ? load : undefined;
    try {
      if (!(loading && ctx.db.kind === 'pglite')) await ctx.db.query('SELECT 1');
    } catch (err) {
      ctx.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'readiness: database unreachable');
      return jsonReply(
        c,
        503,
        { status: 'unavailable', reason: 'database_unreachable', database: ctx.db.kind, message: 'The database does not answer.' },
        NO_STORE,
      );
    }
    const states = loading ? loading.states : await defaultPlaceStates(ctx, manifests);
    // ready: its addresses are answered now; loading: where it is in this start's one-at-a-time import (null: not part of it).
    const loadOf = (slug: string) => loading?.queue.find((q) => q.slug === slug);
    const places = states.map((p) => ({
      slug: p.slug,
      status: p.manifestStatus === 'planned_not_live' || p.joinsTooPoor ? 'planned_not_live' : p.loaded ? 'live' : 'live_unavailable',
      ready: p.loaded,
      loading: loadOf(p.slug)?.state ?? null,
      loaded: p.loaded,
      stale: p.stale,
      importedAt: p.importedAt,
    }));
    const missing = states.filter((p) => p.manifestStatus === 'live' && !p.loaded).map((p) => p.slug);
    // 200 once every live place answers, even while places that are not live still import.
    if (missing.length === 0) return jsonReply(c, 200, { status: 'ok', database: ctx.db.kind, places, ...(loading ? { loading: true } : {}) }, NO_STORE);
    const stillLoading = missing.filter((slug) => ['queued', 'importing'].includes(loadOf(slug)?.state ?? ''));
    if (stillLoading.length === missing.length) {
      return jsonReply(
        c,
        503,
        {
          status: 'unavailable',
          reason: 'places_loading',
          database: ctx.db.kind,
          missing,
          loading: true,
          message: `Live place ${missing.join(', ')} is being imported by this start; its addresses are answered as soon as it is loaded.`,
          places,
        },
        { ...NO_STORE, 'retry-after': String(LOADING_RETRY_AFTER_SECONDS) },
      );
    }
    return jsonReply(
      c,
      503,
      {
        status: 'unavailable',
        reason: 'places_missing',
        database: ctx.db.kind,
        missing,
        message: `Live place ${missing.join(', ')} is not loaded, so its addresses cannot be answered. ${howToLoad(missing)}`,
        places,
      },
      NO_STORE,
    );
  });

  app.pages.get('/metrics', async (c) => {
    // Only the exact path: the router also matches /metrics/ and //metrics, which a proxy's deny rule for /metrics can miss.
    const pathname = new URL(c.req.url).pathname;
    if (pathname !== '/metrics') return errorReply(c, 404, 'not_found', `No route for ${c.req.method} ${pathname}.`);
    const token = ctx.config.metricsToken;
    if (token) {
      const m = /^Bearer\s+(.+)$/i.exec(String(c.req.header('authorization') ?? ''));
      if (!m || !sameSecret(m[1]!.trim(), token)) {
        return errorReply(c, 401, 'unauthorized', 'Send "Authorization: Bearer <SITELINE_METRICS_TOKEN>".', { 'www-authenticate': 'Bearer realm="metrics"' });
      }
    } else if (!isLoopbackUrl(ctx.config.baseUrl) || !fromLoopbackPeer(c.env.incoming)) {
      return errorReply(
        c,
        404,
        'not_found',
        'Metrics are served with SITELINE_METRICS_TOKEN set, or without it only on a loopback base URL to requests from this machine.',
      );
    }
    if (!ctx.metrics) return errorReply(c, 404, 'not_found', 'Metrics are not collected in this process.');
    const { contentType, body } = await ctx.metrics.render(ctx.db);
    return c.body(body, 200, { 'content-type': contentType, ...NO_STORE });
  });
}
