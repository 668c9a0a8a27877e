// Every server-rendered page of the account surface.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { registerAccountPages } from './account-pages.ts';
import { registerClaimPage } from './claim-page.ts';
import { registerOutboxPage } from './outbox-page.ts';
import { registerApiKeysPage } from './api-keys-page.ts';
import { registerProjectPages } from './project-pages.ts';
import { registerMapRoutes } from './map-routes.ts';
import { registerPublicMap } from './public-map.ts';
import { registerCoveragePage, registerCoveragePlacePage } from './coverage-page.ts';
import { registerSourcesPage } from './sources-page.ts';
import { registerPlaceSources } from './place-sources.ts';
import { registerLinkedAgentRoutes } from './linked-agents.ts';
import { registerConnectedAppRoutes } from './connected-apps.ts';
import { installErrorPages } from './error-pages.ts';
import { csrfFailure } from '../http/page.ts';
import { registerSitePages } from './site-page.ts';
import { registerFeedbackPages } from './feedback-pages.ts';
import { registerStaffPages } from './staff-pages.ts';
import { registerGeoCoverageRoute } from './geo-coverage-route.ts';
import { registerReportDownloadRoute } from './report-download-route.ts';
import { registerEmailVerificationPages } from './email-verification-page.ts';
import { registerMailStaffPage } from './mail-staff-page.ts';
import { registerAccountSecurityPages } from './account-security-pages.ts';

export function mountRoutes(app: HttpApp, ctx: AppContext): void {
  registerAccountPages(app, ctx);
  registerAccountSecurityPages(app, ctx);
  registerClaimPage(app, ctx);
  registerEmailVerificationPages(app, ctx);
  registerOutboxPage(app, ctx);
  registerMailStaffPage(app, ctx);
  registerApiKeysPage(app, ctx);
  registerProjectPages(app, ctx);
  registerMapRoutes(app, ctx);
  registerPublicMap(app, ctx);
  registerCoveragePage(app, ctx);
  registerCoveragePlacePage(app, ctx);
  registerSourcesPage(app, ctx);
  registerPlaceSources(app, ctx);
  registerLinkedAgentRoutes(app, ctx, csrfFailure);
  registerConnectedAppRoutes(app, ctx, csrfFailure);
  registerSitePages(app, ctx);
  registerGeoCoverageRoute(app, ctx);
  registerFeedbackPages(app, ctx);
  registerStaffPages(app, ctx);
  registerReportDownloadRoute(app, ctx);
  // Errors on every path no other surface claims: a page for a browser, JSON for programs.
  installErrorPages(app);
}
