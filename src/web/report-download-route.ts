// GET /reports/exports/<exportId>.pdf?expires=..&sig=..: serves a saved report to whoever holds a
// valid signed link (no sign-in: the link is the capability). Expired: 410; altered: 403.
import type { AppContext } from '../context.ts';
import type { NodeRoutes as Router } from '../http/node-routes.ts';
import { sendError } from '../http/respond.ts';
import { EXPORT_PATH_PREFIX, checkExportLink } from '../reports/signed-url.ts';
import { loadExportPdf } from '../reports/export-store.ts';

export function registerReportDownloadRoute(router: Router, ctx: AppContext): void {
  router.get(`${EXPORT_PATH_PREFIX}/:file`, async (req, res, params) => {
    const exportId = /^(.+)\.pdf$/.exec(params.file ?? '')?.[1] ?? '';
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const check = await checkExportLink(ctx, exportId, q.get('expires'), q.get('sig'));
    if (!check.ok && check.reason === 'expired') return sendError(req, res, 410, 'link_expired', 'This download link has expired. Ask siteline for a new link to the same report.');
    if (!check.ok) return sendError(req, res, 403, 'bad_signature', 'This download link is not valid (it was altered or is incomplete).');
    const found = await loadExportPdf(ctx, exportId);
    if (!found) return sendError(req, res, 404, 'not_found', 'No such report.');
    const filename = `${found.title.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || 'siteline-report'}.pdf`;
    res.writeHead(200, {
      'content-type': 'application/pdf',
      'content-length': found.pdf.length,
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'private, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : found.pdf);
  });
}
