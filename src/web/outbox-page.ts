// The development outbox: mail the service would have sent, readable by a person. Served only when
// the base URL is a loopback address (a developer's machine) AND the request itself comes from this
// machine: the default HOST is 0.0.0.0, so a loopback base URL alone would show the mail to the network.
// The files under <dataDir>/outbox always exist.
import { currentAccount } from './web-session.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { errorReply } from '../http/reply.ts';
import { htmlPage } from '../http/page.ts';
import { Html, html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { listMail } from '../mail/dev-outbox.ts';
import { linkifyToHtml } from '../mail/message.ts';
import { isLoopbackUrl } from '../config.ts';
import { fromLoopbackPeer } from '../http/client-ip.ts';
import { PAGE_HEADERS } from '../http/page.ts';

export function outboxVisible(baseUrl: string): boolean {
  return isLoopbackUrl(baseUrl);
}

export function registerOutboxPage(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/dev/outbox', async (c) => {
    if (!outboxVisible(ctx.config.baseUrl) || !fromLoopbackPeer(c.env.incoming)) {
      return errorReply(c, 404, 'not_found', 'The development outbox is only served on a loopback base URL, to requests from this machine.');
    }
    // ?to=<address> lists only that address's mail (a developer, or a test, looking for one link).
    const to = new URL(c.req.url).searchParams.get('to')?.trim().toLowerCase() || undefined;
    const mail = await listMail(ctx, 50, to);
    const body = html`<p>Mail the service would have sent (newest first). Also written to files under the data directory's <code>outbox/</code>.</p>
${mail.length === 0 ? html`<p>No mail yet.</p>` : ''}
${mail.map((m) => html`<article class="mail"><h2>${m.subject}</h2><p>To: <span class="to">${m.to}</span> · ${m.createdAt}</p><pre>${new Html(linkifyToHtml(m.body))}</pre></article>`)}`;
    const account = await currentAccount(ctx, c);
    return htmlPage(c, 200, page('Development outbox', body, { signedInAs: account?.email ?? null }), PAGE_HEADERS);
  });
}
