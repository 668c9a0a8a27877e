// GET /reports/exports/<exportId>.pdf?expires=..&sig=..: serves a saved report to whoever holds a
// valid signed link (no sign-in: the link is the capability). Expired: 410; altered: 403.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { errorReply } from '../http/reply.ts';
import { EXPORT_PATH_PREFIX, checkExportLink } from '../reports/signed-url.ts';
import { loadExportPdf } from '../reports/export-store.ts';

export function registerReportDownloadRoute(app: HttpApp, ctx: AppContext): void {
  app.pages.get(`${EXPORT_PATH_PREFIX}/:file`, async (c) => {
    const exportId = /^(.+)\.pdf$/.exec(c.req.param('file') ?? '')?.[1] ?? '';
    const q = new URL(c.req.url).searchParams;
    const check = await checkExportLink(ctx, exportId, q.get('expires'), q.get('sig'));
    if (!check.ok && check.reason === 'expired')
      return errorReply(c, 410, 'link_expired', 'This download link has expired. Ask siteline for a new link to the same report.');
    if (!check.ok) return errorReply(c, 403, 'bad_signature', 'This download link is not valid (it was altered or is incomplete).');
    const found = await loadExportPdf(ctx, exportId);
    if (!found) return errorReply(c, 404, 'not_found', 'No such report.');
    const filename = `${
      found.title
        .replace(/[^A-Za-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 80) || 'siteline-report'
    }.pdf`;
    // (a HEAD gets the same headers without the body: hono answers it as the GET)
    return c.body(new Uint8Array(found.pdf), 200, {
      'content-type': 'application/pdf',
      'content-length': String(found.pdf.length),
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'private, max-age=300',
      'x-content-type-options': 'nosniff',
    });
  });
}
