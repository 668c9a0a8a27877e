// The home page: what siteline is, the address form (a GET to /sites, so it works without JavaScript
// and without CSRF: it changes nothing), the account links and where agents connect.
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { sendHtml } from '../http/respond.ts';
import { mcpResource } from '../auth/endpoints.ts';
import { DISCOVERY_PATHS } from '../http/discovery-documents.ts';
import { html, page, type Html } from './html.ts';
import { currentAccount } from './web-session.ts';
import { PAGE_HEADERS } from './account-pages.ts';

export const SITES_PATH = '/sites';

/** The address form, shared by the home page and the snapshot page (prefilled there). */
export function addressForm(address = '', error?: string): Html {
  return html`${error ? html`<p class="error" role="alert" id="address-error">${error}</p>` : ''}
<form method="get" action="${SITES_PATH}" id="address-form">
<label for="address">Street address (US or Canada)</label>
<input id="address" name="address" type="text" required maxlength="300" autocomplete="street-address" placeholder="57 Inman St, Cambridge, MA" value="${address}">
<button type="submit">Check this address</button>
</form>`;
}

/** Sign in / sign up for a visitor, the account page for a signed-in person. */
export function accountLinks(email: string | undefined): Html {
  return email
    ? html`<p>Signed in as <strong>${email}</strong> · <a href="/account">Your account</a></p>`
    : html`<p><a href="/signin?next=%2F">Sign in</a> or <a href="/signup?next=%2F">sign up</a> to check addresses. · <a href="/account">Account</a></p>`;
}

export function registerHomePage(router: Router, ctx: AppContext): void {
  router.get('/', async (req, res) => {
    const account = await currentAccount(ctx, req);
    const mcpUrl = mcpResource(ctx.config);
    const body = html`<p>siteline turns a US or Canadian street address into a sourced site snapshot: the lot and its measurements,
its zoning district(s) and overlays, the permitted uses and a building envelope (height, floor area, yards, coverage and more).
Every value carries its provenance: <em>cited</em> from the bylaw with its section, or honestly marked as unknown
(<em>not extracted</em>) or indicative (<em>unverified default</em>). A null is never passed off as "no limit".</p>
${accountLinks(account?.email)}
<h2>Check an address</h2>
${addressForm()}
<h2>For agents</h2>
<p>The same snapshot is served to AI agents over MCP (streamable HTTP) at <code id="mcp-endpoint">${mcpUrl}</code>.
<a href="/connect" id="connect-link">Connect an agent or MCP client</a>: configuration for Claude, Cursor, VS Code and MCP Inspector, the registration flow and the tools
(implementer notes: <a href="${DISCOVERY_PATHS.mcpGuide}">the MCP guide</a>).</p>`;
    sendHtml(res, 200, page('Sourced site intelligence', body, { signedInAs: account?.email ?? null }), PAGE_HEADERS);
  });
}
