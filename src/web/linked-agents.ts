// "Linked agents and CLI logins" on the account page: the agent registrations this account claimed,
// each by the name it registered with ("CLI on <host>"), with its last use and a way to revoke it.
// Revoking revokes every credential of the registration (its identity assertions and
// any pre-claim token), so the jwt-bearer exchange refuses it, and closes the claim's redelivery
// window so the claim_token cannot fetch a fresh assertion. An access token (JWT) it already holds is
// refused at once by a revocation record for the agent (see auth/token-revocation.ts).
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import type { Account } from '../auth/accounts.ts';
import { html, type Html } from '../http/html.ts';
import { page, PAGE_HEADERS } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { outboxVisible } from './outbox-page.ts';
import { fromLoopbackPeer } from '../http/client-ip.ts';
import { agentScope, forgetRevocations, revokeTokens } from '../auth/token-revocation.ts';
import { REVOKED_MARK } from '../auth/end-credentials.ts';
import { isCliRegistration } from '../auth/agent-identity.ts';
import { setFlash, takeFlash } from '../http/cookies.ts';
import { dateWords, whenWords } from './time-words.ts';

export interface LinkedAgent {
  registrationId: string;
  type: string;
  /** What the registration called itself ("CLI on <host>" for the CLI), if anything. */
  label: string | null;
  claimedAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

export async function linkedAgents(ctx: AppContext, accountId: string): Promise<LinkedAgent[]> {
  const rows = await ctx.db.query<{ registration_id: string; type: string; label: string | null; claimed_at: Date | string; last_used: Date | string | null }>(
    `SELECT r.registration_id, r.type, r.label, r.claimed_at,
            COALESCE(r.last_used_at, (SELECT max(c.created_at) FROM agent_credentials c WHERE c.registration_id = r.registration_id)) AS last_used
       FROM agent_registrations r
      WHERE r.account_id = $1 AND r.claimed_at IS NOT NULL
      ORDER BY r.claimed_at DESC, r.registration_id`,
    [accountId],
  );
  // Revoked: the claim's delivery window was closed on revoke (see REVOKED_MARK).
  const closed = await ctx.db.query<{ registration_id: string }>(
    `SELECT registration_id FROM agent_registrations WHERE account_id = $1 AND claim_delivered_at = $2`,
    [accountId, REVOKED_MARK],
  );
  const closedIds = new Set(closed.map((r) => r.registration_id));
  return rows.map((r) => ({
    registrationId: r.registration_id,
    type: r.type,
    label: r.label,
    claimedAt: new Date(r.claimed_at).toISOString(),
    lastUsedAt: r.last_used ? new Date(r.last_used).toISOString() : null,
    revoked: closedIds.has(r.registration_id),
  }));
}

/** Revokes one of this account's agents; false when it is not this account's. */
export async function revokeLinkedAgent(ctx: AppContext, accountId: string, registrationId: string): Promise<boolean> {
  const done = await ctx.db.transaction(async (tx) => {
    const owned = await tx.query<{ registration_id: string }>(
      'SELECT registration_id FROM agent_registrations WHERE registration_id = $1 AND account_id = $2 FOR UPDATE',
      [registrationId, accountId],
    );
    if (!owned.length) return false;
    await tx.query('UPDATE agent_credentials SET revoked_at = $2 WHERE registration_id = $1 AND revoked_at IS NULL', [
      registrationId,
      ctx.clock.now().toISOString(),
    ]);
    await tx.query('UPDATE agent_registrations SET claim_delivered_at = $2 WHERE registration_id = $1', [registrationId, REVOKED_MARK]);
    await revokeTokens(ctx, accountId, agentScope(registrationId), 'agent revoked on the account page', tx);
    ctx.logger.info({ registrationId }, 'linked agent revoked from the account page');
    return true;
  });
  forgetRevocations(ctx, accountId);
  return done;
}

const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id);

/**
 * The name a person recognises: the registration's own label (the CLI's "CLI on <host>", or what
 * registered it, "Agent registered with curl 8.5.0": src/auth/agent-identity.ts), else the day it was
 * linked; the short id is shown beside it either way.
 */
export function agentName(a: Pick<LinkedAgent, 'label' | 'claimedAt'>): string {
  return a.label ?? `Agent linked on ${dateWords(a.claimedAt)}`;
}

/** The account page's "Linked agents and CLI logins" section (and the development outbox link on a developer's machine). */
export async function linkedAgentsSection(ctx: AppContext, c: HttpContext, account: Account): Promise<Html> {
  const agents = await linkedAgents(ctx, account.accountId);
  const csrf = csrfToken(ctx, c);
  const now = ctx.clock.now();
  const list = agents.length
    ? html`<ul class="agents">${agents.map(
        (
          a,
        ) => html`<li id="agent-${a.registrationId}"><strong class="agent-name">${agentName(a)}</strong> (${a.type === 'service_auth' ? 'linked by e-mail' : 'anonymous, then claimed'}, <code>${shortId(a.registrationId)}</code>), linked ${whenWords(a.claimedAt, now)}, last used ${whenWords(a.lastUsedAt, now)}.
${a.revoked ? html` <span class="badge badge-unknown">revoked</span>` : html`<form method="post" action="/account/agents/${a.registrationId}/revoke"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" aria-label="Revoke ${agentName(a)}">Revoke</button></form>`}</li>`,
      )}</ul>`
    : html`<p>No agent is linked to this account. An agent links itself by showing you a link and a 6-digit code.</p>`;
  const outbox =
    outboxVisible(ctx.config.baseUrl) && fromLoopbackPeer(c.env.incoming)
      ? html`<p class="muted">Development: mail the service would have sent is in the <a href="/dev/outbox">development outbox</a>.</p>`
      : '';
  return html`<section id="linked-agents" aria-labelledby="linked-agents-h"><h2 id="linked-agents-h">Linked agents and CLI logins</h2>
${list}
<p class="muted">Revoking ends the agent's access at once: it gets no new access, and an access token it already holds is refused.</p>
${outbox}</section>`;
}

const ACCOUNT_PAGE = '/account';

/** The account page's one-time confirmation after a revoke here or under Connected apps (set with setFlash for /account). */
export function accountPageMessage(ctx: AppContext, c: HttpContext): Html {
  const message = takeFlash(ctx.config, c, ACCOUNT_PAGE);
  return message ? html`<p class="ok" role="status" id="page-message">${message}</p>` : html``;
}

export function registerLinkedAgentRoutes(app: HttpApp, ctx: AppContext, onCsrfFailure: (c: HttpContext) => Response): void {
  app.pages.post('/account/agents/:id/revoke', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return onCsrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account');
    const done = await revokeLinkedAgent(ctx, account.accountId, c.req.param('id')!);
    if (!done) {
      return htmlPage(
        c,
        404,
        page(
          'Agent not found',
          html`<p class="error" role="alert">No agent with that id is linked to your account.</p><p><a href="/account">Back to your account</a></p>`,
          { signedInAs: account.email },
        ),
        PAGE_HEADERS,
      );
    }
    // A confirmation on the account page (issue 49, item 5): what was revoked, by the name it is listed under.
    const revoked = (await linkedAgents(ctx, account.accountId)).find((a) => a.registrationId === c.req.param('id'));
    const what =
      revoked && isCliRegistration(revoked.label) ? `The CLI login "${agentName(revoked)}"` : `The agent "${revoked ? agentName(revoked) : c.req.param('id')}"`;
    setFlash(ctx.config, c, ACCOUNT_PAGE, `${what} is revoked: it can no longer act for your account.`);
    return redirect(c, '/account#linked-agents');
  });
}
