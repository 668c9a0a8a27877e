// Every server-rendered page of the account surface.
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
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
import { csrfFailure } from './page.ts';
import { registerConnectPage } from './connect-page.ts';
import { registerEmailVerificationPages } from './email-verification-page.ts';
import { registerMailStaffPage } from './mail-staff-page.ts';
import { registerAccountSecurityPages } from './account-security-pages.ts';

export function registerWebRoutes(router: Router, ctx: AppContext): void {
  registerAccountPages(router, ctx);
  registerAccountSecurityPages(router, ctx);
  registerClaimPage(router, ctx);
  registerEmailVerificationPages(router, ctx);
  registerOutboxPage(router, ctx);
  registerMailStaffPage(router, ctx);
  registerApiKeysPage(router, ctx);
  registerProjectPages(router, ctx);
  registerMapRoutes(router, ctx);
  registerPublicMap(router, ctx);
  registerCoveragePage(router, ctx);
  registerCoveragePlacePage(router, ctx);
  registerSourcesPage(router, ctx);
  registerPlaceSources(router, ctx);
  registerLinkedAgentRoutes(router, ctx, csrfFailure);
  registerConnectedAppRoutes(router, ctx, csrfFailure);
  installErrorPages(router);
  registerConnectPage(router, ctx);
}
