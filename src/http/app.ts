// Every surface registers its routes here, over the same context.
import type { AppContext } from '../context.ts';
import { Router } from './router.ts';
import { sendJson } from './respond.ts';
import { loadAllManifests } from '../importer/manifest.ts';
import { defaultPlaceStates, howToLoad } from '../importer/default-places.ts';

export async function buildRouter(ctx: AppContext): Promise<Router> {
  const router = new Router();
  const manifests = loadAllManifests(ctx.config.placesDir);
  // Up, and able to answer: 503 while a live default place is not loaded (a fresh clone without data).
  router.get('/healthz', async (_req, res) => {
    await ctx.db.query('SELECT 1');
    const states = await defaultPlaceStates(ctx, manifests);
    const places = states.map((p) => ({
      slug: p.slug,
      status: p.manifestStatus === 'planned_not_live' ? 'planned_not_live' : p.loaded ? 'live' : 'live_unavailable',
      loaded: p.loaded,
      stale: p.stale,
      importedAt: p.importedAt,
    }));
    const missing = states.filter((p) => p.manifestStatus === 'live' && !p.loaded).map((p) => p.slug);
    const headers = { 'cache-control': 'no-store' };
    if (missing.length === 0) return sendJson(res, 200, { status: 'ok', database: ctx.db.kind, places }, headers);
    sendJson(
      res,
      503,
      { status: 'unavailable', database: ctx.db.kind, missing, message: `Live place ${missing.join(', ')} is not loaded, so its addresses cannot be answered. ${howToLoad(missing)}`, places },
      headers,
    );
  });
  // Surfaces mount below (one line each).
  await (await import('../auth/routes.ts')).registerAuthRoutes(router, ctx);
  (await import('../mcp/routes.ts')).registerMcpRoutes(router, ctx);
  (await import('./discovery-documents.ts')).registerDiscoveryDocuments(router, ctx);
  (await import('./geo-coverage-route.ts')).registerGeoCoverageRoute(router, ctx);
  (await import('../rest/routes.ts')).registerRestRoutes(router, ctx);
  (await import('../web/feedback-pages.ts')).registerFeedbackPages(router, ctx);
  (await import('./report-download-route.ts')).registerReportDownloadRoute(router, ctx);
  return router;
}
