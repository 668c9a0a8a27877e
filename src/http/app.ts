// Every surface registers its routes here, over the same context.
import type { AppContext } from '../context.ts';
import { Router } from './router.ts';

export async function buildRouter(ctx: AppContext): Promise<Router> {
  const router = new Router();
  // /healthz (alive), /readyz (able to answer), /metrics (Prometheus).
  (await import('./health-routes.ts')).registerHealthRoutes(router, ctx);
  // Surfaces mount below (one line each).
  const oauth = await (await import('../oauth/routes.ts')).registerOAuthRoutes(router, ctx);
  (await import('../web/routes.ts')).registerWebRoutes(router, ctx);
  (await import('../web/site-page.ts')).registerSitePages(router, ctx);
  (await import('../web/consent-page.ts')).registerConsentPage(router, ctx, oauth);
  (await import('../mcp/routes.ts')).registerMcpRoutes(router, ctx);
  (await import('./discovery-documents.ts')).registerDiscoveryDocuments(router, ctx);
  (await import('./geo-coverage-route.ts')).registerGeoCoverageRoute(router, ctx);
  (await import('../rest/routes.ts')).registerRestRoutes(router, ctx);
  (await import('../web/feedback-pages.ts')).registerFeedbackPages(router, ctx);
  (await import('../web/staff-pages.ts')).registerStaffPages(router, ctx);
  (await import('../rest/staff-api.ts')).registerStaffApi(router, ctx);
  (await import('./report-download-route.ts')).registerReportDownloadRoute(router, ctx);
  return router;
}
