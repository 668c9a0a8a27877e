// The staff API: JSON under /staff/api for the CLI acting on a running service (`siteline credits
// grant`, `feedback list|review`, `staff add|remove|list|revoke-key|actions|export-allowance`). Either
// a user access token (what `siteline login` holds) of a staff account (a verified account made staff:
// src/staff/staff-members.ts), or the machine's operator credential (src/staff/operator-credential.ts)
// from a loopback peer through no proxy; anyone else is refused (401 without a valid credential, 403
// when the account is not staff). Every change is a call in src/staff/, recorded there.
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.ts';
import type { HttpApp, HttpContext } from '../http/http-app.ts';
import { readBody } from '../http/respond.ts';
import { errorReply, jsonReply } from '../http/reply.ts';
import { verifyBearer } from '../auth/verify-bearer.ts';
import { SitelineError } from '../core/errors.ts';
import {
  balanceOf,
  grantCredit,
  listStaffActions,
  reviewFeedback,
  revokeKeyForAbuse,
  setExportAllowance,
  viewFeedback,
  type StaffActor,
} from '../staff/staff-actions.ts';
import { addStaff, listStaff, removeStaff, staffMember } from '../staff/staff-members.ts';
import { isOperatorToken, OPERATOR_TOKEN_PREFIX } from '../staff/operator-credential.ts';
import type { FeedbackFilter } from '../feedback/feedback-store.ts';
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
  const raw = String(req.headers['x-siteline-operator'] ?? '')
    .replace(/[^\w.@+-]/g, '')
    .slice(0, 100);
  return `operator:${raw || 'unnamed'}`;
}

/** The staff member behind the bearer (or the machine's operator), or the 401/403 answer. */
async function staffCaller(ctx: AppContext, c: HttpContext): Promise<StaffActor | Response> {
  const req = c.env.incoming;
  const operator = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1];
  if (operator?.startsWith(`${OPERATOR_TOKEN_PREFIX}_`)) {
    if (fromThisMachine(req) && isOperatorToken(ctx, operator)) return { who: operatorName(req), via: 'operator' };
    return errorReply(
      c,
      401,
      'unauthorized',
      "This operator credential is not the running server's (it changes at every start), or it was sent from another machine or through a proxy.",
      { 'www-authenticate': 'Bearer', ...NO_STORE },
    );
  }
  const verdict = await verifyBearer(ctx, req.headers.authorization, 'mcp');
  if (verdict.kind !== 'valid' || verdict.caller.tokenType !== 'jwt' || !verdict.caller.accountId) {
    const why =
      verdict.kind === 'invalid'
        ? verdict.reason
        : verdict.kind === 'none'
          ? 'No credential was sent.'
          : 'Only a signed-in user token opens the staff API (not an API key or an agent token).';
    return errorReply(c, 401, 'unauthorized', `${why} Log in with \`siteline login\` as a staff account.`, { 'www-authenticate': 'Bearer', ...NO_STORE });
  }
  const member = await staffMember(ctx, verdict.caller.accountId);
  if (!member) {
    const [row] = await ctx.db.query<{ email: string }>('SELECT email FROM accounts WHERE account_id = $1', [verdict.caller.accountId]);
    return errorReply(
      c,
      403,
      'forbidden',
      `${row?.email ?? 'This account'} is not staff: staff actions are refused (staff are verified accounts made staff with \`siteline staff add\`).`,
      NO_STORE,
    );
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

/** Staff routes: refused unless staff, then the action; domain errors map to the JSON envelope (src/http/errors.ts). */
function staffRoute(ctx: AppContext, fn: (actor: StaffActor, c: HttpContext) => Promise<Response>) {
  return async (c: HttpContext): Promise<Response> => {
    const actor = await staffCaller(ctx, c);
    return actor instanceof Response ? actor : fn(actor, c);
  };
}

// Long because: a registrar declares one family of routes on the router, each route a short handler of its own.
export function registerStaffApi(app: HttpApp, ctx: AppContext): void {
  app.pages.get(
    '/staff/api/credits',
    staffRoute(ctx, async (_actor, c) => {
      const email = new URL(c.req.url).searchParams.get('email') ?? '';
      if (!email.trim()) throw new SitelineError('bad_input', 'Give ?email=<the account e-mail>.');
      return jsonReply(c, 200, await balanceOf(ctx, email), NO_STORE);
    }),
  );

  app.pages.post(
    '/staff/api/credit-grants',
    staffRoute(ctx, async (actor, c) => {
      const body = await jsonBody(c.env.incoming);
      const credits = typeof body.credits === 'number' ? body.credits : Number.NaN;
      return jsonReply(c, 201, await grantCredit(ctx, actor, { email: str(body.email) ?? '', credits, reason: str(body.reason) }), NO_STORE);
    }),
  );

  app.pages.get(
    '/staff/api/feedback',
    staffRoute(ctx, async (actor, c) => {
      const q = new URL(c.req.url).searchParams;
      const filter: FeedbackFilter = {};
      if (q.get('limit')) {
        const n = Number(q.get('limit'));
        if (!Number.isInteger(n) || n < 1 || n > 1000) throw new SitelineError('bad_input', 'limit must be a whole number from 1 to 1000.');
        filter.limit = n;
      }
      const category = q.get('category');
      if (category) {
        if (!(FEEDBACK_CATEGORIES as readonly string[]).includes(category))
          throw new SitelineError('bad_input', `category must be one of ${FEEDBACK_CATEGORIES.join(', ')}.`);
        filter.category = category as FeedbackCategory;
      }
      const since = q.get('since');
      if (since) {
        const d = new Date(since);
        if (Number.isNaN(d.getTime())) throw new SitelineError('bad_input', 'since must be a date such as 2026-11-01.');
        filter.since = d;
      }
      return jsonReply(c, 200, { feedback: await viewFeedback(ctx, actor, filter) }, NO_STORE);
    }),
  );

  app.pages.post(
    '/staff/api/feedback/:id/review',
    staffRoute(ctx, async (actor, c) => {
      const body = await jsonBody(c.env.incoming);
      return jsonReply(c, 200, await reviewFeedback(ctx, actor, { submissionId: c.req.param('id')!, note: str(body.note) }), NO_STORE);
    }),
  );

  app.pages.post(
    '/staff/api/keys/:id/revoke',
    staffRoute(ctx, async (actor, c) => {
      const body = await jsonBody(c.env.incoming);
      return jsonReply(c, 200, await revokeKeyForAbuse(ctx, actor, { keyId: c.req.param('id')!, reason: str(body.reason) }), NO_STORE);
    }),
  );

  app.pages.post(
    '/staff/api/export-allowances',
    staffRoute(ctx, async (actor, c) => {
      const body = await jsonBody(c.env.incoming);
      const allowance = typeof body.allowance === 'number' ? body.allowance : Number.NaN;
      return jsonReply(c, 200, await setExportAllowance(ctx, actor, { email: str(body.email) ?? '', allowance, reason: str(body.reason) }), NO_STORE);
    }),
  );

  app.pages.get(
    '/staff/api/staff',
    staffRoute(ctx, async (_actor, c) => {
      return jsonReply(c, 200, { staff: await listStaff(ctx) }, NO_STORE);
    }),
  );

  app.pages.post(
    '/staff/api/staff',
    staffRoute(ctx, async (actor, c) => {
      const body = await jsonBody(c.env.incoming);
      const r = await addStaff(ctx, actor, { email: str(body.email) ?? '', reason: str(body.reason) });
      return jsonReply(c, r.changed ? 201 : 200, r, NO_STORE);
    }),
  );

  app.pages.post(
    '/staff/api/staff/remove',
    staffRoute(ctx, async (actor, c) => {
      const body = await jsonBody(c.env.incoming);
      return jsonReply(c, 200, await removeStaff(ctx, actor, { email: str(body.email) ?? '', reason: str(body.reason) }), NO_STORE);
    }),
  );

  app.pages.get(
    '/staff/api/actions',
    staffRoute(ctx, async (_actor, c) => {
      const limit = Number(new URL(c.req.url).searchParams.get('limit') ?? 100);
      return jsonReply(c, 200, { actions: await listStaffActions(ctx, limit) }, NO_STORE);
    }),
  );
}
