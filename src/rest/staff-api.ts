// The staff API: JSON under /staff/api for the CLI acting on a running service (`siteline credits
// grant`, `feedback list|review`, `staff add|remove|list|revoke-key|actions|export-allowance`). Either
// a user access token (what `siteline login` holds) of a staff account (a verified account made staff:
// src/staff/staff-members.ts), or the machine's operator credential (src/staff/operator-credential.ts)
// from a loopback peer through no proxy; anyone else is refused (401 without a valid credential, 403
// when the account is not staff). Every change is a call in src/staff/, recorded there.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import type { NodeRoutes as Router } from '../http/node-routes.ts';
import { readBody, sendError, sendJson } from '../http/respond.ts';
import { verifyBearer } from '../auth/verify-bearer.ts';
import { SitelineError } from '../core/errors.ts';
import { balanceOf, grantCredit, listStaffActions, reviewFeedback, revokeKeyForAbuse, setExportAllowance, viewFeedback, type StaffActor } from '../staff/staff-actions.ts';
import { addStaff, listStaff, removeStaff, staffMember } from '../staff/staff-members.ts';
import { isOperatorToken, OPERATOR_TOKEN_PREFIX } from '../staff/operator-credential.ts';
import { type FeedbackFilter } from '../feedback/feedback-store.ts';
import { FEEDBACK_CATEGORIES, type FeedbackCategory } from '../feedback/feedback-form.ts';

const NO_STORE = { 'cache-control': 'no-store' };
const JSON_LIMIT = 16 * 1024;

/**
 * The socket peer is this machine (loopback, or the very address it reached when the server listens on
 * one interface) and no proxy forwarded the request (a proxy on this machine would add X-Forwarded-For).
 */
function fromThisMachine(req: IncomingMessage): boolean {
  const peer = req.socket.remoteAddress ?? '';
  const local = peer === '::1' || /^(::ffff:)?127\./.test(peer) || (peer !== '' && peer === req.socket.localAddress);
  return local && req.headers['x-forwarded-for'] === undefined && req.headers.forwarded === undefined;
}

/** `X-Siteline-Operator: <os user>@<host>` as the CLI sends it, kept printable and short for the record. */
function operatorName(req: IncomingMessage): string {
  const raw = String(req.headers['x-siteline-operator'] ?? '').replace(/[^\w.@+-]/g, '').slice(0, 100);
  return `operator:${raw || 'unnamed'}`;
}

/** The staff member behind the bearer (or the machine's operator), or undefined after answering 401/403. */
async function staffCaller(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<StaffActor | undefined> {
  const operator = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1];
  if (operator?.startsWith(`${OPERATOR_TOKEN_PREFIX}_`)) {
    if (fromThisMachine(req) && isOperatorToken(ctx, operator)) return { who: operatorName(req), via: 'operator' };
    sendError(req, res, 401, 'unauthorized', 'This operator credential is not the running server\'s (it changes at every start), or it was sent from another machine or through a proxy.', { 'www-authenticate': 'Bearer', ...NO_STORE });
    return undefined;
  }
  const verdict = await verifyBearer(ctx, req.headers.authorization, 'mcp');
  if (verdict.kind !== 'valid' || verdict.caller.tokenType !== 'jwt' || !verdict.caller.accountId) {
    const why = verdict.kind === 'invalid' ? verdict.reason : verdict.kind === 'none' ? 'No credential was sent.' : 'Only a signed-in user token opens the staff API (not an API key or an agent token).';
    sendError(req, res, 401, 'unauthorized', `${why} Log in with \`siteline login\` as a staff account.`, { 'www-authenticate': 'Bearer', ...NO_STORE });
    return undefined;
  }
  const member = await staffMember(ctx, verdict.caller.accountId);
  if (!member) {
    const [row] = await ctx.db.query<{ email: string }>('SELECT email FROM accounts WHERE account_id = $1', [verdict.caller.accountId]);
    sendError(req, res, 403, 'forbidden', `${row?.email ?? 'This account'} is not staff: staff actions are refused (staff are verified accounts made staff with \`siteline staff add\`).`, NO_STORE);
    return undefined;
  }
  return { who: member.email, accountId: member.accountId, via: 'api' };
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = (await readBody(req, JSON_LIMIT)).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw || '{}');
  } catch {
    throw new SitelineError('bad_input', 'The body is not JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SitelineError('bad_input', 'The body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** Staff routes: refused unless staff, then the action; domain errors map to the JSON envelope (server.ts). */
function staffRoute(ctx: AppContext, fn: (actor: StaffActor, req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => Promise<void>) {
  return async (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => {
    const actor = await staffCaller(ctx, req, res);
    if (actor) await fn(actor, req, res, params);
  };
}

export function registerStaffApi(router: Router, ctx: AppContext): void {
  router.get('/staff/api/credits', staffRoute(ctx, async (_actor, req, res) => {
    const email = new URL(req.url ?? '/', 'http://x').searchParams.get('email') ?? '';
    if (!email.trim()) throw new SitelineError('bad_input', 'Give ?email=<the account e-mail>.');
    sendJson(res, 200, await balanceOf(ctx, email), NO_STORE);
  }));

  router.post('/staff/api/credit-grants', staffRoute(ctx, async (actor, req, res) => {
    const body = await jsonBody(req);
    const credits = typeof body.credits === 'number' ? body.credits : Number.NaN;
    sendJson(res, 201, await grantCredit(ctx, actor, { email: str(body.email) ?? '', credits, reason: str(body.reason) }), NO_STORE);
  }));

  router.get('/staff/api/feedback', staffRoute(ctx, async (actor, req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const filter: FeedbackFilter = {};
    if (q.get('limit')) {
      const n = Number(q.get('limit'));
      if (!Number.isInteger(n) || n < 1 || n > 1000) throw new SitelineError('bad_input', 'limit must be a whole number from 1 to 1000.');
      filter.limit = n;
    }
    const category = q.get('category');
    if (category) {
      if (!(FEEDBACK_CATEGORIES as readonly string[]).includes(category)) throw new SitelineError('bad_input', `category must be one of ${FEEDBACK_CATEGORIES.join(', ')}.`);
      filter.category = category as FeedbackCategory;
    }
    const since = q.get('since');
    if (since) {
      const d = new Date(since);
      if (Number.isNaN(d.getTime())) throw new SitelineError('bad_input', 'since must be a date such as 2026-11-01.');
      filter.since = d;
    }
    sendJson(res, 200, { feedback: await viewFeedback(ctx, actor, filter) }, NO_STORE);
  }));

  router.post('/staff/api/feedback/:id/review', staffRoute(ctx, async (actor, req, res, params) => {
    const body = await jsonBody(req);
    sendJson(res, 200, await reviewFeedback(ctx, actor, { submissionId: params.id!, note: str(body.note) }), NO_STORE);
  }));

  router.post('/staff/api/keys/:id/revoke', staffRoute(ctx, async (actor, req, res, params) => {
    const body = await jsonBody(req);
    sendJson(res, 200, await revokeKeyForAbuse(ctx, actor, { keyId: params.id!, reason: str(body.reason) }), NO_STORE);
  }));

  router.post('/staff/api/export-allowances', staffRoute(ctx, async (actor, req, res) => {
    const body = await jsonBody(req);
    const allowance = typeof body.allowance === 'number' ? body.allowance : Number.NaN;
    sendJson(res, 200, await setExportAllowance(ctx, actor, { email: str(body.email) ?? '', allowance, reason: str(body.reason) }), NO_STORE);
  }));

  router.get('/staff/api/staff', staffRoute(ctx, async (_actor, _req, res) => {
    sendJson(res, 200, { staff: await listStaff(ctx) }, NO_STORE);
  }));

  router.post('/staff/api/staff', staffRoute(ctx, async (actor, req, res) => {
    const body = await jsonBody(req);
    const r = await addStaff(ctx, actor, { email: str(body.email) ?? '', reason: str(body.reason) });
    sendJson(res, r.changed ? 201 : 200, r, NO_STORE);
  }));

  router.post('/staff/api/staff/remove', staffRoute(ctx, async (actor, req, res) => {
    const body = await jsonBody(req);
    sendJson(res, 200, await removeStaff(ctx, actor, { email: str(body.email) ?? '', reason: str(body.reason) }), NO_STORE);
  }));

  router.get('/staff/api/actions', staffRoute(ctx, async (_actor, req, res) => {
    const limit = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('limit') ?? 100);
    sendJson(res, 200, { actions: await listStaffActions(ctx, limit) }, NO_STORE);
  }));
}
