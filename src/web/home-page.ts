// The home page: what siteline is and gives, why checking an address needs an account, the address
// form (a GET to /sites, so it works without JavaScript and without CSRF: it changes nothing), the
// coverage, and where agents connect.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { mcpResource } from '../auth/endpoints.ts';
import { DISCOVERY_PATHS } from '../http/discovery-paths.ts';
import { listPlaces } from '../places/catalogue.ts';
import { html, type Html } from '../http/html.ts';
import { page, PAGE_HEADERS } from '../http/page.ts';
import { csrfToken, currentAccount } from './web-session.ts';
import type { Account } from '../auth/accounts.ts';
import { isEmailVerified } from '../auth/email-verification.ts';
import { resendForm } from '../http/account-notice.ts';
import type { HttpContext } from '../http/http-app.ts';

export const SITES_PATH = '/sites';

/** The address form, shared by the home page and the snapshot page (prefilled there). */
export function addressForm(address = '', error?: string): Html {
  return html`${error ? html`<p class="error" role="alert" id="address-error">${error}</p>` : ''}
<form method="get" action="${SITES_PATH}" id="address-form">
<label for="address">Street address (US or Canada)</label>
<input id="address" name="address" type="text" required maxlength="300" autocomplete="street-address" placeholder="11 Acorn St, Cambridge, MA" value="${address}">
<button type="submit">Check this address</button>
</form>`;
}

/** Sign in / sign up for a visitor, the account page for a signed-in person. */
export function accountLinks(email: string | undefined): Html {
  return email
    ? html`<p>Signed in as <strong>${email}</strong> · <a href="/account">Your account</a></p>`
    : html`<p><a href="/signin?next=%2F">Sign in</a> or <a href="/signup?next=%2F">sign up</a> to check addresses. · <a href="/account">Account</a></p>`;
}

/**
 * Right after sign-up (issue 49, item 5): the address still needs its link, so the home page says to
 * check the mail and offers a new one. Everything but linking agents and buying credit works meanwhile.
 */
async function checkYourEmail(ctx: AppContext, c: HttpContext, account: Account): Promise<Html> {
  if (await isEmailVerified(ctx, account.accountId)) return html``;
  return html`<div id="check-your-email" class="ok" role="status"><p><strong>Check your e-mail.</strong> We sent a verification link to <strong>${account.email}</strong>; open it to link agents and buy API credit.
Checking addresses works already. Nothing arrived after a few minutes (look in the spam folder too)?</p>${resendForm(csrfToken(ctx, c), '/')}</div>`;
}

export function registerHomePage(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/', async (c) => {
    const account = await currentAccount(ctx, c);
    const mcpUrl = mcpResource(ctx.config);
    const live = (await listPlaces(ctx)).filter((p) => p.status === 'live');
    const visitor = html`<section id="what-you-get" aria-labelledby="get-h"><h2 id="get-h">What you get for an address</h2>
<ul>
<li><strong>The lot</strong>, outlined on a map: its area, frontage, depth and whether it is a corner lot.</li>
<li><strong>Its zoning</strong>: the district(s), with each one's share of a split lot, and any overlays.</li>
<li><strong>A building envelope</strong>: height, floor area ratio, yards, lot coverage, density and the values worked out from them.</li>
<li><strong>Permitted uses</strong>, as far as the bylaw has been read.</li>
<li><strong>Where every value comes from</strong>: a status on each one (read from the bylaw, indicative, or unknown) and the section it was read from.
An unknown value says "unknown", never zero and never "no limit".</li>
</ul></section>
<section id="why-sign-in" aria-labelledby="why-h"><h2 id="why-h">Why you need an account</h2>
<p>Checking an address looks up a lot and its rules on every request, so it is kept to people with an account: that keeps the service fair to share and
keeps your projects (their lots, the feasibility analysis, PDF reports) and lets your agents act for you, under one identity. An account is free: an e-mail address and a password.</p>
${accountLinks(undefined)}</section>`;
    const body = html`<p>siteline turns a US or Canadian street address into a sourced site snapshot: the lot and its measurements,
its zoning district(s) and overlays, the permitted uses and a building envelope (height, floor area, yards, coverage and more).
Every value carries its provenance: <em>cited</em> from the bylaw with its section, or honestly marked as unknown
(<em>not extracted</em>) or indicative (<em>unverified default</em>). A null is never passed off as "no limit".</p>
${account ? html`${await checkYourEmail(ctx, c, account)}${accountLinks(account.email)}` : visitor}
<h2>Check an address</h2>
${addressForm()}
<p>Addresses can be answered today in ${live.length ? live.map((p, i) => html`${i ? ', ' : ''}<strong>${p.name}, ${p.region}</strong>`) : 'no place yet'}.
See <a href="/coverage">coverage</a> for every place siteline knows, its status and the age of its data.</p>
<h2>For agents</h2>
<p>The same snapshot is served to AI agents over MCP (streamable HTTP) at <code id="mcp-endpoint">${mcpUrl}</code>.
<a href="/connect" id="connect-link">Connect an agent or MCP client</a>: configuration for Claude, Cursor, VS Code and MCP Inspector, the registration flow and the tools
(implementer notes: <a href="${DISCOVERY_PATHS.mcpGuide}">the MCP guide</a>).</p>`;
    return htmlPage(c, 200, page('Sourced site intelligence', body, { signedInAs: account?.email ?? null }), PAGE_HEADERS);
  });
}
