// /account/api-keys: the signed-in account's REST API keys (create, shown once; revoke; last used)
// and its prepaid credit (balance, recent entries, buying through Stripe Checkout when configured,
// otherwise how the operator grants credit). Plain HTML forms with CSRF tokens, no JavaScript.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import type { NodeRoutes as Router } from '../http/node-routes.ts';
import { sendHtml } from '../http/respond.ts';
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

export const API_KEYS_PAGE = '/account/api-keys';

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : 'never');

export function registerApiKeysPage(router: Router, ctx: AppContext): void {
  async function signedIn(req: IncomingMessage, res: ServerResponse): Promise<Account | undefined> {
    const account = await currentAccount(ctx, req);
    if (!account) redirect(res, `/signin?next=${encodeURIComponent(API_KEYS_PAGE)}`);
    return account;
  }

  async function render(req: IncomingMessage, res: ServerResponse, account: Account, status: number, notice?: Html): Promise<void> {
    const csrf = csrfToken(ctx, req, res);
    const [keys, usage] = await Promise.all([listApiKeys(ctx, account.accountId), usageOf(ctx, account.accountId, { recent: 10 })]);
    const purchase = new URL(req.url ?? '/', 'http://x').searchParams.get('purchase');
    const verified = await isEmailVerified(ctx, account.accountId);
    const buy = purchasingEnabled(ctx.config)
      ? !verified
        ? unverifiedNotice(account, csrf, API_KEYS_PAGE)
        : html`<form method="post" action="/account/credits/checkout">
<input type="hidden" name="csrf" value="${csrf}">
<label for="packs">Packs of ${PACK_CREDITS.toLocaleString('en-US')} credits (US$${(PACK_PRICE_CENTS / 100).toFixed(2)} each)</label>
<input id="packs" name="packs" type="text" inputmode="numeric" value="1">
<button type="submit">Buy with Stripe Checkout</button>
</form>`
      : html`<p id="purchasing-off">Purchasing is not set up on this service. Staff grant credit while the service runs, on
<code>/staff</code> or with <code>siteline credits grant ${account.email} &lt;credits&gt; --reason "..."</code>; on a new installation the machine's operator first makes an account staff with <code>siteline staff add &lt;email&gt;</code> (docs/cli.md).</p>`;
    const rows = keys.map(
      (k) => html`<tr><td>${k.name}</td><td><code>${k.prefix}…</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td><td>${
        k.revokedAt
          ? html`revoked ${when(k.revokedAt)}`
          : html`<form method="post" action="${API_KEYS_PAGE}/revoke"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="key_id" value="${k.id}"><button type="submit">Revoke</button></form>`
      }</td></tr>`,
    );
    const recent = usage.recent.map((e) => html`<tr><td>${when(e.at)}</td><td>${e.kind}</td><td>${e.amount}</td><td>${e.reference}</td></tr>`);
    const body = html`${notice ?? ''}${purchase === 'done' ? html`<p class="ok">Thank you: the credit appears here as soon as the payment is confirmed.</p>` : ''}
<h2>Credit</h2>
<p>Balance: <strong id="balance">${usage.balance}</strong> credits. An answered snapshot from <code>/api/v1/sites/check</code> costs ${SNAPSHOT_PRICE} credit; everything else is free.</p>
${buy}
${recent.length ? html`<table><tr><th>When</th><th>Entry</th><th>Credits</th><th>Reference</th></tr>${recent}</table>` : ''}
<h2>API keys</h2>
<p>Send a key as <code>Authorization: Bearer sl_live_…</code> to the REST API under <code>/api/v1</code> (<a href="/docs/api">reference</a>). Keys do not open the MCP endpoint. At most ${MAX_ACTIVE_KEYS} active keys.</p>
${rows.length ? html`<table id="keys"><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th></th></tr>${rows}</table>` : html`<p>No keys yet.</p>`}
${verified
  ? html`<form method="post" action="${API_KEYS_PAGE}">
<input type="hidden" name="csrf" value="${csrf}">
<label for="name">New key name</label><input id="name" name="name" type="text" required maxlength="80" placeholder="production">
<button type="submit">Create key</button>
</form>`
  : html`<p id="keys-need-verified">A key is made once this account's e-mail address is verified (a key made by someone who signed up with another person's address would spend that person's credit).</p>${purchasingEnabled(ctx.config) ? '' : unverifiedNotice(account, csrf, API_KEYS_PAGE)}`}
<p><a href="/account">Back to your account</a></p>`;
    sendHtml(res, status, page('API keys and credit', body, { signedInAs: account.email, wide: true }), PAGE_HEADERS);
  }

  router.get(API_KEYS_PAGE, async (req, res) => {
    const account = await signedIn(req, res);
    if (account) await render(req, res, account, 200);
  });

  router.post(API_KEYS_PAGE, async (req, res) => {
    const form = await readForm(req);
    if (!csrfOk(ctx, req, form)) return csrfFailure(res);
    const account = await signedIn(req, res);
    if (!account) return;
    try {
      const created = await createApiKey(ctx, account.accountId, form.name ?? '');
      await render(
        req,
        res,
        account,
        201,
        html`<div class="ok" role="status"><p>Your new key "${created.name}" is below. Copy it now: it is shown this once and cannot be shown again.</p><pre id="new-key">${created.key}</pre></div>`,
      );
    } catch (err) {
      if (!(err instanceof SitelineError) || (err.code !== 'bad_input' && err.code !== 'conflict' && err.code !== 'forbidden')) throw err;
      await render(req, res, account, { conflict: 409, forbidden: 403 }[err.code as string] ?? 400, html`<p class="error" role="alert" id="key-refused">${err.message}</p>`);
    }
  });

  router.post(`${API_KEYS_PAGE}/revoke`, async (req, res) => {
    const form = await readForm(req);
    if (!csrfOk(ctx, req, form)) return csrfFailure(res);
    const account = await signedIn(req, res);
    if (!account) return;
    await revokeApiKey(ctx, account.accountId, form.key_id ?? '');
    redirect(res, API_KEYS_PAGE);
  });

  router.post('/account/credits/checkout', async (req, res) => {
    const form = await readForm(req);
    if (!csrfOk(ctx, req, form)) return csrfFailure(res);
    const account = await signedIn(req, res);
    if (!account) return;
    if (!purchasingEnabled(ctx.config)) return render(req, res, account, 404, html`<p class="error" role="alert">Purchasing is not set up on this service.</p>`);
    const packs = Number(form.packs);
    if (!Number.isInteger(packs) || packs < 1 || packs > MAX_PACKS) {
      return render(req, res, account, 400, html`<p class="error" role="alert">Choose a whole number of packs from 1 to ${MAX_PACKS}.</p>`);
    }
    if (!(await isEmailVerified(ctx, account.accountId))) {
      // Nothing reaches the payment provider; the buy section shows what to do (unverifiedNotice).
      return render(req, res, account, 403, html`<p class="error" role="alert" id="purchase-refused">Nothing was bought: this account's e-mail address is not verified yet.</p>`);
    }
    try {
      const checkout = await createCheckout(ctx, account, packs);
      redirect(res, checkout.url);
    } catch (err) {
      ctx.logger.warn({ err }, 'checkout session could not be created');
      await render(req, res, account, 502, html`<p class="error" role="alert">The payment provider could not be reached; nothing was charged. Try again in a moment.</p>`);
    }
  });
}
