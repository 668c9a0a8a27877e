// GET /places/<slug>/sources.json: a place's source catalogue (src/snapshot/source-catalogue.ts), the
// document a snapshot's `sourceCatalogue.url` names. Public, like the coverage page. Asked for by the
// version the snapshot names (?v=), it never changes, so it may be cached for good.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { jsonReply, errorReply } from '../http/reply.ts';
import { loadSourceCatalogue } from '../snapshot/source-catalogue.ts';

export function registerPlaceSources(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/places/:slug/sources.json', async (c) => {
    const slug = c.req.param('slug') ?? '';
    const catalogue = /^[a-z0-9-]+$/.test(slug) ? await loadSourceCatalogue(ctx, slug) : null;
    if (!catalogue) return errorReply(c, 404, 'not_found', 'No such place.');
    const asked = new URL(c.req.url).searchParams.get('v');
    const { place, version, sources, attribution } = catalogue;
    return jsonReply(
      c,
      200,
      { place, version, sources, attribution },
      { 'cache-control': asked === version ? 'public, max-age=31536000, immutable' : 'no-cache' },
    );
  });
}
