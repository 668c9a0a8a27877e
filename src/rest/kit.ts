// What every /api/v1 route shares: the path prefix, the authentication and rate-limit step (with the
// charge settled in the same statement for a known paid answer), JSON body reading, schema refusals,
// the out-of-credit problem and raw sends. A route file (sites-check.ts, coverage.ts, usage.ts, keys.ts,
// reference.ts, webhook.ts) registers itself through `route`; src/rest/routes.ts mounts them in order.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Handler, NodeRoutes as Router } from '../http/node-routes.ts';
import { rateLimitHeaders, readBody } from '../http/respond.ts';
import { verifyBearer, wwwAuthenticate, type Caller } from '../auth/verify-bearer.ts';
import type { RatePolicy } from '../ops/rate-limit.ts';
import { countApiRequest, countPaidApiRequest, type ChargeOutcome, type ChargeRequest } from '../billing/api-keys.ts';
import { creditBalance, SNAPSHOT_PRICE } from '../billing/credit-ledger.ts';
import { purchasingEnabled } from '../billing/payments.ts';
import { sendFailure, sendProblem } from './problem.ts';
import { issueList } from './schemas.ts';

export const API_PREFIX = '/api/v1';
/** Per key (or per account for user tokens); the paid call and the free lookups share it. */
export const API_RATE_LIMIT: RatePolicy = { bucket: 'api_v1', limit: 6_000, windowSeconds: 60 };
export const CREDITS_CHARGED = 'siteline-credits-charged';
export const CREDITS_REMAINING = 'siteline-credits-remaining';
const JSON_BODY_MAX = 16 * 1024;

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => Promise<void>;
export type Authed = { caller: Caller & { accountId: string }; limit: Record<string, string>; charge?: ChargeOutcome };

export interface RestKit {
  ctx: AppContext;
  router: Router;
  /** Registers a path's handlers; any other method (OPTIONS preflights included) is a 405 with no CORS header. */
  route(path: string, handlers: Partial<Record<'GET' | 'POST' | 'DELETE', RouteHandler>>): void;
  /** A handler whose thrown errors become problems. */
  guard(fn: RouteHandler): Handler;
  /**
   * The caller, after the token check and the rate limit; null when a problem was sent. With a charge (a
   * paid call whose answer is known), the same statement settles the bill: `charge` says what was charged
   * and the balance after it (nothing is charged when the rate limit refuses).
   */
  authenticate(req: IncomingMessage, res: ServerResponse, charge?: ChargeRequest): Promise<Authed | null>;
  readJson(req: IncomingMessage, res: ServerResponse): Promise<{ ok: true; value: unknown } | { ok: false }>;
  invalid(req: IncomingMessage, res: ServerResponse, error: z.ZodError, headers?: Record<string, string>): void;
  /** The 402 of a paid call: the net balance (below zero when a refund took back credit already spent), how to buy. */
  outOfCredit(req: IncomingMessage, res: ServerResponse, limit: Record<string, string>, accountId: string, seen: number): Promise<void>;
  howToBuy(): string;
}

export function restKit(router: Router, ctx: AppContext): RestKit {
  const guard =
    (fn: RouteHandler): Handler =>
    async (req, res, params) => {
      try {
        await fn(req, res, params);
      } catch (err) {
        sendFailure(ctx, req, res, err);
      }
    };
  const howToBuy = () =>
    purchasingEnabled(ctx.config)
      ? `Buy credit on ${ctx.config.baseUrl}/account/api-keys (card payment through Stripe Checkout).`
      : 'Purchasing is not set up on this service: ask its operator to grant credit (siteline credits grant <email> <credits>).';
  return {
    ctx,
    router,
    guard,
    howToBuy,
    route(path, handlers) {
      const allowed = Object.keys(handlers);
      for (const [method, fn] of Object.entries(handlers)) router.add(method, path, guard(fn!));
      router.add('*', path, (req, res) => sendProblem(ctx, req, res, 'method_not_allowed', `${req.method} is not allowed on ${path}. Allowed: ${allowed.join(', ')}.`, { allow: allowed.join(', ') }));
    },
    async authenticate(req, res, charge) {
      const verdict = await verifyBearer(ctx, req.headers.authorization, 'rest', { keyRateLimit: API_RATE_LIMIT, ...(charge ? { keyCharge: charge } : {}) });
      if (verdict.kind !== 'valid' || !verdict.caller.accountId) {
        const reason = verdict.kind === 'invalid' ? verdict.reason : 'No credential was sent.';
        sendProblem(ctx, req, res, 'unauthorized', `${reason} Send "Authorization: Bearer <API key>" (create keys on ${ctx.config.baseUrl}/account/api-keys) or a user access token with scope mcp.`, {
          'www-authenticate': wwwAuthenticate(ctx, { surface: 'rest', ...(verdict.kind === 'invalid' ? { error: 'invalid_token', description: verdict.reason } : {}) }),
        });
        return null;
      }
      const caller = verdict.caller as Caller & { accountId: string };
      // Keys are counted (and charged) with the key check itself (one statement); user tokens per account here.
      let decision = verdict.rate;
      let bill = verdict.charge;
      if (!decision) {
        const subject = `account:${caller.accountId}`;
        if (charge) ({ rate: decision, charge: bill } = await countPaidApiRequest(ctx, API_RATE_LIMIT, caller.accountId, subject, charge));
        else decision = await countApiRequest(ctx, API_RATE_LIMIT, subject);
      }
      const limit = rateLimitHeaders(decision);
      if (!decision.allowed) {
        sendProblem(
          ctx,
          req,
          res,
          'rate_limited',
          `This ${caller.keyId ? 'key' : 'account'} may make ${decision.limit} requests per ${decision.windowSeconds} seconds, and this limit is used up. Wait ${decision.resetSeconds} seconds, then retry. Nothing was charged.`,
          { ...limit, 'retry-after': String(decision.resetSeconds) },
        );
        return null;
      }
      return bill ? { caller, limit, charge: bill } : { caller, limit };
    },
    async readJson(req, res) {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        req.resume();
        sendProblem(ctx, req, res, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
        return { ok: false };
      }
      const raw = await readBody(req, JSON_BODY_MAX);
      try {
        return { ok: true, value: JSON.parse(raw.toString('utf8')) };
      } catch {
        sendProblem(ctx, req, res, 'bad_request', 'The body is not valid JSON.');
        return { ok: false };
      }
    },
    invalid(req, res, error, headers = {}) {
      const errors = issueList(error, (req.method ?? 'GET').toUpperCase() === 'POST' ? '(body)' : '(query)');
      sendProblem(ctx, req, res, 'bad_request', errors.map((e) => `${e.path}: ${e.message}`).join('; '), headers, { errors });
    },
    async outOfCredit(req, res, limit, accountId, seen) {
      const balance = Math.min(seen, await creditBalance(ctx.db, accountId));
      sendProblem(
        ctx,
        req,
        res,
        'out_of_credit',
        `This account has ${balance} credits and an answered snapshot costs ${SNAPSHOT_PRICE}. Nothing was charged. ${howToBuy()}`,
        { ...limit, [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(balance) },
        // buyUrl only where credit can be bought: without payments it would lead nowhere (the detail says whom to ask).
        { balance, price: SNAPSHOT_PRICE, ...(purchasingEnabled(ctx.config) ? { buyUrl: `${ctx.config.baseUrl}/account/api-keys` } : {}) },
      );
    },
  };
}

export function sendRaw(res: ServerResponse, status: number, body: string | Buffer, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}

export function sendJsonBody(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendRaw(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers);
}
