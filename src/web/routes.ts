// Every server-rendered page of the account surface.
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { registerAccountPages } from './account-pages.ts';
import { registerClaimPage } from './claim-page.ts';
import { registerOutboxPage } from './outbox-page.ts';
import { registerConnectPage } from './connect-page.ts';

export function registerWebRoutes(router: Router, ctx: AppContext): void {
  registerAccountPages(router, ctx);
  registerClaimPage(router, ctx);
  registerOutboxPage(router, ctx);
  registerConnectPage(router, ctx);
}
