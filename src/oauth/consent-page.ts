// The browser OAuth interaction: sign in with the web account (our own pages), then a consent page
// naming the client, the resource and the scopes. Allow writes a grant; Deny ends with access_denied.
// Allowing needs a verified e-mail address, as linking an agent through the claim page does: the grant
// gives a client the same access as a claim (docs/auth.md, "E-mail verification").
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import type { OAuthServer } from './oauth-provider.ts';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { PATHS } from '../auth/endpoints.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { csrfOk as formCsrfOk, csrfToken as formCsrfToken } from '../http/csrf.ts';
import { SESSION_COOKIE, readCookie } from '../http/cookies.ts';
import { accountForWebSession } from '../auth/web-sessions.ts';
import { WEB_SESSION_TTL_S } from '../auth/lifetimes.ts';
import { csrfFailure, PAGE_HEADERS, pageHeadersWithFormTargets } from '../http/page.ts';
import { isEmailVerified } from '../auth/email-verification.ts';
import { unverifiedNotice } from '../http/account-notice.ts';
import { UNVERIFIED_MESSAGE } from '../auth/email-verification.ts';
import type { Account } from '../auth/accounts.ts';
import unhomoglyph from 'unhomoglyph';

interface InteractionDetails {
  uid: string;
  prompt: { name: string; details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> } };
  params: { client_id: string; scope?: string; resource?: string | string[]; redirect_uri?: string };
  session?: { accountId?: string };
  grantId?: string;
}

/**
 * The CSP source for the origin a consent decision redirects to: the scheme and host of an http(s)
 * redirect URI, or the scheme alone of a private-use one (RFC 8252 §7.1, e.g. `cursor:`). Anything
 * that is not plainly one of these gets no source (the form then stays limited to 'self').
 */
export function formActionSource(redirectUri: string | undefined): string | undefined {
  if (!redirectUri) return undefined;
  let u: URL;
  try {
    u = new URL(redirectUri);
  } catch {
    return undefined;
  }
  if (u.protocol === 'http:' || u.protocol === 'https:') {
    const origin = u.origin;
    return /^https?:\/\/([a-z0-9-]+\.)*[a-z0-9-]+(:\d{1,5})?$/.test(origin) ? origin : undefined;
  }
  return /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) && u.protocol !== 'javascript:' && u.protocol !== 'data:' ? u.protocol : undefined;
}

/** The redirect URI of this authorization request (oidc-provider checked it against the client). */
function redirectUriOf(d: InteractionDetails, client: { redirectUris?: string[] } | undefined): string | undefined {
  return d.params.redirect_uri ?? (client?.redirectUris?.length === 1 ? client.redirectUris[0] : undefined);
}

/**
 * The consent page's headers: its form's redirect chain ends at the redirect URI oidc-provider already
 * checked against the client's registration, and Chromium enforces form-action on that last hop too.
 */
function consentHeaders(d: InteractionDetails, client: { redirectUris?: string[] } | undefined): Record<string, string> {
  const target = formActionSource(redirectUriOf(d, client));
  return target ? pageHeadersWithFormTargets([target]) : PAGE_HEADERS;
}

/** What each scope lets a client do, in words a person can weigh before allowing it. */
export const SCOPE_WORDS: Record<string, string> = {
  mcp:
    "use siteline's tools as you: read full site snapshots (lot, zoning, building envelope) and your projects, and, when asked, create and change your projects, run analyses, " +
    'export PDF reports (each counts against your monthly exports), ask to list a project on the public map (you confirm each listing) and send feedback in your words',
  'mcp.public': "use siteline's public tools: coverage checks, city inventories and the guide (nothing from your account)",
  offline_access: 'stay connected without asking you again, until you revoke its access',
  openid: 'know your siteline account identifier',
};

/**
 * A client name is the client's own claim: Dynamic Client Registration (and a Client ID Metadata
 * Document at any https URL) lets anyone call itself "Claude Desktop (official)". A name that names a
 * product or claims a status it cannot prove is shown as that claim, beside where the person will be
 * sent, never as an identity. The name is compared by its Unicode skeleton (TR39 confusables, via
 * `unhomoglyph`), without accents, invisible characters, case, spaces or punctuation, so "Сlaude"
 * (Cyrillic С), "ＣｈａｔＧＰＴ", "0penAI", "Cur\u200bsor" and "ClaudeDesktop" count as well.
 */
const CLAIMED_ANYWHERE = [
  'claude',
  'anthropic',
  'chatgpt',
  'openai',
  'cursor',
  'copilot',
  'github',
  'vscode',
  'visualstudio',
  'gemini',
  'google',
  'microsoft',
  'windsurf',
  'siteline',
  'official',
  'verified',
  'certified',
  'trusted',
  'authentic',
  'genuine',
];
/** Short names that are also parts of ordinary words: they count only as whole words. */
const CLAIMED_AS_WORD = /(?:^| )(?:gpt(?: ?\d[\w.]*)?|zed|vs code)(?: |$)/;
const skeleton = (s: string) =>
  unhomoglyph(
    s
      .normalize('NFKD')
      .replace(/[\p{M}\p{Cf}]/gu, '')
      .toLowerCase(),
  ).toLowerCase();
const CLAIMED_SKELETONS = CLAIMED_ANYWHERE.map(skeleton);

export function namesKnownProduct(clientName: string): boolean {
  const plain = skeleton(clientName);
  const squashed = plain.replace(/[^\p{L}\p{N}]+/gu, '');
  if (CLAIMED_SKELETONS.some((w) => squashed.includes(w))) return true;
  return CLAIMED_AS_WORD.test(plain.replace(/[^\p{L}\p{N}.]+/gu, ' ').trim());
}

/**
 * How a client is named on the consent pages: a product-like name as the client's own claim, labelled
 * unverified, with the host it will receive access at (and, for a metadata-document client, the host
 * that published its name); any other name plainly, with the same host beside it.
 */
function clientNamed(clientName: string, host: string, clientId: string): { claim: boolean; who: Html } {
  let publisher: string | undefined;
  if (/^https:\/\//.test(clientId)) {
    try {
      publisher = new URL(clientId).host;
    } catch {
      publisher = undefined;
    }
  }
  if (!namesKnownProduct(clientName)) return { claim: false, who: html`<strong id="client-name">${clientName}</strong>` };
  return {
    claim: true,
    who: html`<span id="unverified-client" class="error"><strong>Unverified client.</strong> It calls itself <strong id="client-name">&ldquo;${clientName}&rdquo;</strong>, a name it chose itself${publisher ? html` (published by <strong id="client-publisher">${publisher}</strong>)` : ''}; siteline has not checked it. It will receive access at <strong id="redirect-host">${host}</strong>. Allow only if you started this from an application you trust that uses that address.</span>`,
  };
}

/** The host a redirect URI sends the person to (a private-use scheme: the scheme itself). */
function redirectHost(uri: string | undefined): string {
  if (!uri) return 'the application';
  try {
    const u = new URL(uri);
    return u.host || `${u.protocol}//`;
  } catch {
    return uri.slice(0, 100);
  }
}

function expired(c: HttpContext): Response {
  return htmlPage(
    c,
    400,
    page('Sign-in expired', html`<p class="error">This sign-in request has expired or was already used. Return to your application and start again.</p>`),
    PAGE_HEADERS,
  );
}

// Long because: a registrar declares one family of routes on the router, each route a short handler of its own;
// splitting it would scatter one page's GET and POST across files.
export function registerConsentPage(app: HttpApp, ctx: AppContext, oauth: OAuthServer): void {
  /** The provider's interaction (read on the raw request), or the expired page. */
  const details = async (c: HttpContext): Promise<InteractionDetails | Response> => {
    const provider = await oauth.provider();
    try {
      return (await provider.interactionDetails(c.env.incoming, c.env.outgoing)) as InteractionDetails;
    } catch {
      return expired(c);
    }
  };
  /** oidc-provider answers the interaction's end itself, on the raw response (a redirect to the client). */
  const finished = async (c: HttpContext, result: Record<string, unknown>, mergeWithLastSubmission: boolean): Promise<Response> => {
    const provider = await oauth.provider();
    await provider.interactionFinished(c.env.incoming, c.env.outgoing, result, { mergeWithLastSubmission });
    return RESPONSE_ALREADY_SENT;
  };

  app.pages.get(`${PATHS.interaction}/:uid`, async (c) => {
    const d = await details(c);
    if (d instanceof Response) return d;
    const account = await accountForWebSession(ctx, readCookie(c, SESSION_COOKIE));
    const here = `${PATHS.interaction}/${c.req.param('uid')}`;
    if (!account) return redirect(c, `/signin?next=${encodeURIComponent(here)}`);
    const provider = await oauth.provider();
    if (d.prompt.name === 'login') return finished(c, { login: { accountId: account.accountId } }, false);
    if (d.session?.accountId && d.session.accountId !== account.accountId) {
      // The web session changed hands since the login step: sign in again as the current account.
      return finished(c, { login: { accountId: account.accountId } }, false);
    }
    const client = await provider.Client.find(d.params.client_id);
    const clientName: string = client?.clientName ?? d.params.client_id;
    const headers = consentHeaders(d, client);
    if (!(await isEmailVerified(ctx, account.accountId)))
      return unverified(c, account, clientNamed(clientName, redirectHost(redirectUriOf(d, client)), d.params.client_id), here, headers);
    const scopes = [...new Set([...(d.prompt.details.missingOIDCScope ?? []), ...Object.values(d.prompt.details.missingResourceScopes ?? {}).flat()])];
    const resources = Object.keys(d.prompt.details.missingResourceScopes ?? {});
    const csrf = formCsrfToken(ctx.config, c, WEB_SESSION_TTL_S);
    const returnTo = redirectUriOf(d, client);
    const host = redirectHost(returnTo);
    // A self-chosen name that names a product is not believed: shown as the client's claim, with where the code goes.
    const named = clientNamed(clientName, host, d.params.client_id);
    const who = named.claim
      ? html`<p>${named.who}</p>
<p>It asks to use siteline as <strong>${account.email}</strong>.</p>`
      : html`<p>${named.who} asks to use siteline as <strong>${account.email}</strong>. It will receive access at <strong id="redirect-host">${host}</strong>.</p>`;
    const words = scopes.map((sc) => SCOPE_WORDS[sc] ?? `use the "${sc}" permission`);
    const body = html`${who}
<p>If you allow it, it will be able to:</p>
<ul id="scopes">${words.length ? words.map((w) => html`<li>${w}</li>`) : html`<li>sign you in</li>`}</ul>
<p class="muted">Technical detail: scopes <code id="scope-values">${scopes.join(' ') || 'none'}</code>${resources.length ? html` on <code>${resources.join(', ')}</code>` : ''}. You can revoke access at any time.</p>
<p>After you choose, you return to <code>${returnTo ?? ''}</code>.</p>
<form method="post" action="${here}">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`;
    return htmlPage(c, 200, page('Allow access?', body, { signedInAs: account.email }), headers);
  });

  /** Consent waits for a verified address: what to do, the resend button (back here after), and Deny. */
  function unverified(c: HttpContext, account: Account, named: { claim: boolean; who: Html }, here: string, headers: Record<string, string>): Response {
    const csrf = formCsrfToken(ctx.config, c, WEB_SESSION_TTL_S);
    const body = html`<p>${named.who}${named.claim ? html`</p><p>It` : ''} asks to use siteline as <strong>${account.email}</strong>.</p>
${unverifiedNotice(UNVERIFIED_MESSAGE, account, csrf, here)}
<p>Once your address is confirmed, reload this page to allow access. Or refuse now:</p>
<form method="post" action="${here}">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`;
    return htmlPage(c, 403, page('Confirm your e-mail address first', body, { signedInAs: account.email }), headers);
  }

  app.pages.post(`${PATHS.interaction}/:uid`, async (c) => {
    const form = await readForm(c);
    if (!formCsrfOk(ctx.config, c, form)) return csrfFailure(c);
    const d = await details(c);
    if (d instanceof Response) return d;
    const account = await accountForWebSession(ctx, readCookie(c, SESSION_COOKIE));
    if (!account) return redirect(c, `/signin?next=${encodeURIComponent(`${PATHS.interaction}/${c.req.param('uid')}`)}`);
    const provider = await oauth.provider();
    if (d.prompt.name !== 'consent') return redirect(c, `${PATHS.interaction}/${c.req.param('uid')}`);
    const client = await provider.Client.find(d.params.client_id);
    const finish = async (result: Record<string, unknown>, mergeWithLastSubmission: boolean): Promise<Response> => {
      if (formActionSource(redirectUriOf(d, client))) return finished(c, result, mergeWithLastSubmission);
      // A redirect URI CSP cannot name (an IPv6 literal such as http://[::1]:PORT): answer with a page
      // that navigates on, so the hop to the client is a plain navigation, not part of the form's chain.
      const returnTo = await provider.interactionResult(c.env.incoming, c.env.outgoing, result, { mergeWithLastSubmission });
      return htmlPage(
        c,
        200,
        page(
          'Returning to your application',
          html`<p>Returning you to the application at <strong>${redirectHost(redirectUriOf(d, client))}</strong>… <a id="continue" href="${returnTo}">Continue</a> if nothing happens.</p>`,
        ),
        { ...PAGE_HEADERS, refresh: `0;url=${returnTo}` },
      );
    };
    if (form.decision !== 'allow') {
      return finish({ error: 'access_denied', error_description: 'The user denied access.' }, false);
    }
    if (!(await isEmailVerified(ctx, account.accountId))) {
      const named = clientNamed(client?.clientName ?? d.params.client_id, redirectHost(redirectUriOf(d, client)), d.params.client_id);
      return unverified(c, account, named, `${PATHS.interaction}/${c.req.param('uid')}`, consentHeaders(d, client));
    }
    const grant = d.grantId ? await provider.Grant.find(d.grantId) : new provider.Grant({ accountId: account.accountId, clientId: d.params.client_id });
    if (d.prompt.details.missingOIDCScope) grant.addOIDCScope(d.prompt.details.missingOIDCScope.join(' '));
    if (d.prompt.details.missingOIDCClaims) grant.addOIDCClaims(d.prompt.details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(d.prompt.details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId: string = await grant.save();
    return finish({ consent: { grantId } }, true);
  });
}
