// /account/api-keys: the signed-in account's REST API keys (create, shown once; revoke; last used)
// and its prepaid credit (balance, recent entries, buying through Stripe Checkout when configured,
// otherwise how the operator grants credit). Plain HTML forms with CSRF tokens, no JavaScript.
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import type { Account } from '../auth/accounts.ts';
import { SitelineError } from '../core/errors.ts';
import { createApiKey, listApiKeys, revokeApiKey, MAX_ACTIVE_KEYS } from '../billing/api-keys.ts';
import { usageOf, SNAPSHOT_PRICE } from '../billing/credit-ledger.ts';
import { createCheckout, purchasingEnabled, MAX_PACKS, PACK_CREDITS, PACK_PRICE_CENTS } from '../billing/payments.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { csrfFailure, PAGE_HEADERS } from './account-pages.ts';
import { isEmailVerified } from '../auth/email-verification.ts';
import { unverifiedNotice } from './email-verification-page.ts';
import { setFlash, takeFlash } from '../http/cookies.ts';
import { whenWords } from './time-words.ts';
import { hasAnyStaff } from '../staff/staff-members.ts';

export const API_KEYS_PAGE = '/account/api-keys';

// Long because: a registrar declares one family of routes on the router, each route a short handler of its own;
// splitting it would scatter one page's GET and POST across files.
export function registerApiKeysPage(app: HttpApp, ctx: AppContext): void {
  /** The signed-in account, or the redirect to sign in. */
  async function signedIn(c: HttpContext): Promise<Account | Response> {
    const account = await currentAccount(ctx, c);
    return account ?? redirect(c, `/signin?next=${encodeURIComponent(API_KEYS_PAGE)}`);
  }

  /**
   * How credit arrives when nothing can be bought (issue 49, item 5), truthfully: staff grant it on the
   * running service (no restart); with no staff yet (a fresh install), the one command that makes the
   * first one, run by the machine's operator where the service runs, while it runs.
   */
  async function noPurchasing(account: Account): Promise<Html> {
    const grant = html`Staff grant credit on the running service, with no restart: on <code>/staff</code>, or with <code>siteline credits grant ${account.email} &lt;credits&gt; --reason "..."</code>.`;
    if (await hasAnyStaff(ctx)) return html`<p id="purchasing-off">Purchasing is not set up on this service. ${grant}</p>`;
    return html`<p id="purchasing-off">Purchasing is not set up on this service. ${grant}</p>
<p id="no-staff-yet">This installation has no staff yet. Whoever runs it makes the first staff member on the machine the service runs on, while it runs (no restart, no login; the account must have verified its e-mail address):</p>
<pre id="staff-add-command">siteline staff add ${account.email}</pre>
<p>That account then opens <code>/staff</code> to grant credit (docs/cli.md).</p>`;
  }

  async function render(c: HttpContext, account: Account, status: number, notice?: Html): Promise<Response> {
    const csrf = csrfToken(ctx, c);
    const [keys, usage] = await Promise.all([listApiKeys(ctx, account.accountId), usageOf(ctx, account.accountId, { recent: 10 })]);
    const purchase = new URL(c.req.url).searchParams.get('purchase');
    const verified = await isEmailVerified(ctx, account.accountId);
    const now = ctx.clock.now();
    const when = (iso: string | null) => whenWords(iso, now);
    const flash = takeFlash(ctx.config, c, API_KEYS_PAGE);
    const buy = purchasingEnabled(ctx.config)
      ? !verified
        ? unverifiedNotice(account, csrf, API_KEYS_PAGE)
        : html`<form method="post" action="/account/credits/checkout">
<input type="hidden" name="csrf" value="${csrf}">
<label for="packs">Packs of ${PACK_CREDITS.toLocaleString('en-US')} credits (US$${(PACK_PRICE_CENTS / 100).toFixed(2)} each)</label>
<input id="packs" name="packs" type="text" inputmode="numeric" value="1">
<button type="submit">Buy with Stripe Checkout</button>
</form>`
      : await noPurchasing(account);
    const rows = keys.map(
      (k) =>
        html`<tr><td>${k.name}</td><td><code>${k.prefix}…</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td><td>${
          k.revokedAt
            ? html`revoked ${when(k.revokedAt)}`
            : html`<form method="post" action="${API_KEYS_PAGE}/revoke"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="key_id" value="${k.id}"><button type="submit">Revoke</button></form>`
        }</td></tr>`,
    );
    const recent = usage.recent.map((e) => html`<tr><td>${when(e.at)}</td><td>${e.kind}</td><td>${e.amount}</td><td>${e.reference}</td></tr>`);
    const body = html`${notice ?? ''}${flash ? html`<p class="ok" role="status" id="page-message">${flash}</p>` : ''}${purchase === 'done' ? html`<p class="ok">Thank you: the credit appears here as soon as the payment is confirmed.</p>` : ''}
<h2>Credit</h2>
<p>Balance: <strong id="balance">${usage.balance}</strong> credits. An answered snapshot from <code>/api/v1/sites/check</code> costs ${SNAPSHOT_PRICE} credit; everything else is free.</p>
${buy}
${recent.length ? html`<table><tr><th>When</th><th>Entry</th><th>Credits</th><th>Reference</th></tr>${recent}</table>` : ''}
<h2>API keys</h2>
<p>Send a key as <code>Authorization: Bearer sl_live_…</code> to the REST API under <code>/api/v1</code> (<a href="/docs/api">reference</a>). Keys do not open the MCP endpoint. At most ${MAX_ACTIVE_KEYS} active keys.</p>
${rows.length ? html`<table id="keys"><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th></th></tr>${rows}</table>` : html`<p>No keys yet.</p>`}
${
  verified
    ? html`<form method="post" action="${API_KEYS_PAGE}">
<input type="hidden" name="csrf" value="${csrf}">
<label for="name">New key name</label><input id="name" name="name" type="text" required maxlength="80" placeholder="production">
<button type="submit">Create key</button>
</form>`
    : html`<p id="keys-need-verified">A key is made once this account's e-mail address is verified (a key made by someone who signed up with another person's address would spend that person's credit).</p>${purchasingEnabled(ctx.config) ? '' : unverifiedNotice(account, csrf, API_KEYS_PAGE)}`
}
<p><a href="/account">Back to your account</a></p>`;
    return htmlPage(c, status, page('API keys and credit', body, { signedInAs: account.email, wide: true }), PAGE_HEADERS);
  }

  app.pages.get(API_KEYS_PAGE, async (c) => {
    const account = await signedIn(c);
    return account instanceof Response ? account : render(c, account, 200);
  });

  app.pages.post(API_KEYS_PAGE, async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await signedIn(c);
    if (account instanceof Response) return account;
    try {
      const created = await createApiKey(ctx, account.accountId, form.name ?? '');
      return await render(
        c,
        account,
        201,
        html`<div class="ok" role="status"><p>Your new key "${created.name}" is below. Copy it now: it is shown this once and cannot be shown again.</p><pre id="new-key">${created.key}</pre></div>`,
      );
    } catch (err) {
      if (!(err instanceof SitelineError) || (err.code !== 'bad_input' && err.code !== 'conflict' && err.code !== 'forbidden')) throw err;
      return render(
        c,
        account,
        { conflict: 409, forbidden: 403 }[err.code as string] ?? 400,
        html`<p class="error" role="alert" id="key-refused">${err.message}</p>`,
      );
    }
  });

  app.pages.post(`${API_KEYS_PAGE}/revoke`, async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await signedIn(c);
    if (account instanceof Response) return account;
    const key = (await listApiKeys(ctx, account.accountId)).find((k) => k.id === form.key_id && !k.revokedAt);
    await revokeApiKey(ctx, account.accountId, form.key_id ?? '');
    if (key) setFlash(ctx.config, c, API_KEYS_PAGE, `The key "${key.name}" (${key.prefix}…) is revoked: requests with it are refused from now on.`);
    return redirect(c, API_KEYS_PAGE);
  });

  app.pages.post('/account/credits/checkout', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await signedIn(c);
    if (account instanceof Response) return account;
    if (!purchasingEnabled(ctx.config)) return render(c, account, 404, html`<p class="error" role="alert">Purchasing is not set up on this service.</p>`);
    const packs = Number(form.packs);
    if (!Number.isInteger(packs) || packs < 1 || packs > MAX_PACKS) {
      return render(c, account, 400, html`<p class="error" role="alert">Choose a whole number of packs from 1 to ${MAX_PACKS}.</p>`);
    }
    if (!(await isEmailVerified(ctx, account.accountId))) {
      // Nothing reaches the payment provider; the buy section shows what to do (unverifiedNotice).
      return render(
        c,
        account,
        403,
        html`<p class="error" role="alert" id="purchase-refused">Nothing was bought: this account's e-mail address is not verified yet.</p>`,
      );
    }
    try {
      const checkout = await createCheckout(ctx, account, packs);
      return redirect(c, checkout.url);
    } catch (err) {
      ctx.logger.warn({ err }, 'checkout session could not be created');
      return render(
        c,
        account,
        502,
        html`<p class="error" role="alert">The payment provider could not be reached; nothing was charged. Try again in a moment.</p>`,
      );
    }
  });
}
