// The composition root of the HTTP service: one hono app, and every surface mounted on it. Each surface
// exposes its routes as `mountRoutes` in src/<surface>/routes.ts, and only this file imports a
// routes.ts (the layer rule "surfaces are mounted in one place", .dependency-cruiser.cjs). The
// plumbing every surface uses (the app type, error formats, the node server) is src/http/, which
// imports no surface.
import type { AppContext } from './context.ts';
import { HttpApp } from './http/http-app.ts';
import { mountRoutes as probes } from './probes/routes.ts';
import { mountRoutes as oauth } from './oauth/routes.ts';
import { mountRoutes as web } from './web/routes.ts';
import { mountRoutes as mcp } from './mcp/routes.ts';
import { mountRoutes as rest } from './rest/routes.ts';

/** A surface's registrar: its routes and error format on the app, over the shared context. */
export type MountRoutes = (app: HttpApp, ctx: AppContext) => void | Promise<void>;

/** In this order: a path two surfaces could claim goes to the first (the mounts, e.g. /api/v1/*, each come last in their surface). */
const SURFACES: readonly MountRoutes[] = [probes, oauth, web, mcp, rest];

export async function buildApp(ctx: AppContext): Promise<HttpApp> {
  const app = new HttpApp(ctx.logger);
  for (const mount of SURFACES) await mount(app, ctx);
  return app;
}
