// GET /places/<slug>/sources.json: a place's source catalogue (src/snapshot/source-catalogue.ts), the
// document a snapshot's `sourceCatalogue.url` names. Public, like the coverage page. Asked for by the
// version the snapshot names (?v=), it never changes, so it may be cached for good.
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { sendError, sendJson } from '../http/respond.ts';
import { loadSourceCatalogue } from '../snapshot/source-catalogue.ts';

export function registerPlaceSources(router: Router, ctx: AppContext): void {
  router.get('/places/:slug/sources.json', async (req, res, params) => {
    const slug = params['slug'] ?? '';
    const catalogue = /^[a-z0-9-]+$/.test(slug) ? await loadSourceCatalogue(ctx, slug) : null;
    if (!catalogue) return sendError(req, res, 404, 'not_found', 'No such place.');
    const asked = new URL(req.url ?? '/', 'http://x').searchParams.get('v');
    const { place, version, sources, attribution } = catalogue;
    sendJson(res, 200, { place, version, sources, attribution }, { 'cache-control': asked === version ? 'public, max-age=31536000, immutable' : 'no-cache' });
  });
}
