// What every /api/v1 route shares: the path prefix, the REST app type (an OpenAPIHono on the service's
// hono app), the authentication and rate-limit step as route middleware (with the charge settled in the
// same statement for a known paid answer), the JSON body step, the validation hook that turns a zod
// failure into a problem, the out-of-credit problem and plain responses. Each route file (sites-check.ts,
// coverage.ts, usage.ts, keys.ts, reference.ts) declares its routes with createRoute (path, zod request
// and responses, OpenAPI text) and binds a handler; src/rest/routes.ts mounts them and the OpenAPI
// document is generated from the same declarations (src/rest/openapi.ts).
import type { IncomingMessage } from 'node:http';
import { OpenAPIHono, type RouteConfig, type RouteHandler } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import { rateLimitHeaders, readBody } from '../http/respond.ts';
import { verifyBearer, wwwAuthenticate, type Caller } from '../auth/verify-bearer.ts';
import type { RatePolicy } from '../ops/rate-limit.ts';
import { countApiRequest, countPaidApiRequest, type ChargeOutcome, type ChargeRequest } from '../billing/api-keys.ts';
import { creditBalance, SNAPSHOT_PRICE } from '../billing/credit-ledger.ts';
import { purchasingEnabled } from '../billing/payments.ts';
import { problemAnswer, type ProblemCode } from './problem.ts';
import { issueList } from './schemas.ts';

export const API_PREFIX = '/api/v1';
/** Per key (or per account for user tokens); the paid call and the free lookups share it. */
export const API_RATE_LIMIT: RatePolicy = { bucket: 'api_v1', limit: 6_000, windowSeconds: 60 };
export const CREDITS_CHARGED = 'siteline-credits-charged';
export const CREDITS_REMAINING = 'siteline-credits-remaining';
const JSON_BODY_MAX = 16 * 1024;

export type Authed = { caller: Caller & { accountId: string }; limit: Record<string, string>; charge?: ChargeOutcome };
export type RestEnv = { Bindings: HttpBindings; Variables: { authed: Authed } };
export type RestContext = Context<RestEnv>;
export type RestApi = OpenAPIHono<RestEnv>;

/** A response with a string or byte body and plain headers: the node adapter writes it without a web stream. */
export function respond(status: number, body: string | Buffer | null, headers: Record<string, string>): Response {
  return new Response(body as ConstructorParameters<typeof Response>[0], { status, headers });
}

/** A JSON answer (no-store; the headers given win). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return respond(status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
}

export interface RestKit {
  ctx: AppContext;
  /** A problem (RFC 9457) as the route's answer. */
  problem(c: Context, code: ProblemCode, detail: string, headers?: Record<string, string>, extra?: Record<string, unknown>): Response;
  /**
   * Route middleware: the caller, after the token check and the rate limit (c.var.authed), or the 401/429
   * problem. Runs before the request is validated, so a refusal of bad input carries the rate headers.
   */
  authenticate: MiddlewareHandler<RestEnv>;
  /**
   * The caller with a charge (a paid call whose answer is known): the same statement settles the bill;
   * `charge` says what was charged and the balance after it (nothing is charged when the rate limit
   * refuses). A Response when refused.
   */
  authenticateCharged(c: RestContext, charge: ChargeRequest): Promise<Authed | Response>;
  /** Route middleware for a JSON body: 415 unless sent as JSON, 413 over 16 KiB (after draining it), 400 when not JSON; then the validator reads it. */
  jsonBody: MiddlewareHandler<RestEnv>;
  /** The validation hook: a zod failure is a 400 problem listing each issue, with the rate headers (and `extra` headers). */
  invalidHook(extra?: Record<string, string>): (result: { success: boolean; error?: z.ZodError; target: string }, c: RestContext) => Response | undefined;
  /** The 402 of a paid call: the net balance (below zero when a refund took back credit already spent), how to buy. */
  outOfCredit(c: RestContext, limit: Record<string, string>, accountId: string, seen: number): Promise<Response>;
  howToBuy(): string;
}

export function restKit(ctx: AppContext): RestKit {
  const howToBuy = () =>
    purchasingEnabled(ctx.config)
      ? `Buy credit on ${ctx.config.baseUrl}/account/api-keys (card payment through Stripe Checkout).`
      : 'Purchasing is not set up on this service: ask its operator to grant credit (siteline credits grant <email> <credits>).';
  const problem: RestKit['problem'] = (c, code, detail, headers = {}, extra = {}) => {
    const a = problemAnswer(ctx, (c.env as HttpBindings).incoming, code, detail, headers, extra);
    return respond(a.status, a.body, a.headers);
  };

  async function authenticateWith(c: RestContext, charge?: ChargeRequest): Promise<Authed | Response> {
    const authorization = c.env.incoming.headers.authorization;
    const verdict = await verifyBearer(ctx, authorization, 'rest', { keyRateLimit: API_RATE_LIMIT, ...(charge ? { keyCharge: charge } : {}) });
    if (verdict.kind !== 'valid' || !verdict.caller.accountId) {
      const reason = verdict.kind === 'invalid' ? verdict.reason : 'No credential was sent.';
      return problem(
        c,
        'unauthorized',
        `${reason} Send "Authorization: Bearer <API key>" (create keys on ${ctx.config.baseUrl}/account/api-keys) or a user access token with scope mcp.`,
        {
          'www-authenticate': wwwAuthenticate(ctx, {
            surface: 'rest',
            ...(verdict.kind === 'invalid' ? { error: 'invalid_token', description: verdict.reason } : {}),
          }),
        },
      );
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
      return problem(
        c,
        'rate_limited',
        `This ${caller.keyId ? 'key' : 'account'} may make ${decision.limit} requests per ${decision.windowSeconds} seconds, and this limit is used up. Wait ${decision.resetSeconds} seconds, then retry. Nothing was charged.`,
        { ...limit, 'retry-after': String(decision.resetSeconds) },
      );
    }
    return bill ? { caller, limit, charge: bill } : { caller, limit };
  }

  return {
    ctx,
    problem,
    howToBuy,
    async authenticate(c, next) {
      const authed = await authenticateWith(c);
      if (authed instanceof Response) return authed;
      c.set('authed', authed);
      await next();
    },
    authenticateCharged: authenticateWith,
    async jsonBody(c, next) {
      const req: IncomingMessage = c.env.incoming;
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        req.resume();
        return problem(c, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
      }
      // Read from the socket with the service's cap and drain (src/http/respond.ts); a body over it is a thrown payload_too_large.
      const text = (await readBody(req, JSON_BODY_MAX)).toString('utf8');
      try {
        JSON.parse(text);
      } catch {
        return problem(c, 'bad_request', 'The body is not valid JSON.');
      }
      // The validator reads the body from hono's body cache (the socket is read once, here); the cache
      // holds the promise of each body reading, whatever its declared type says.
      c.req.bodyCache.text = Promise.resolve(text) as unknown as string;
      await next();
    },
    invalidHook(extra = {}) {
      return (result, c) => {
        if (result.success || !result.error) return undefined;
        const errors = issueList(result.error, result.target === 'json' ? '(body)' : '(query)');
        const limit = c.get('authed')?.limit ?? {};
        return problem(c, 'bad_request', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { ...limit, ...extra }, { errors });
      };
    },
    async outOfCredit(c, limit, accountId, seen) {
      const balance = Math.min(seen, await creditBalance(ctx.db, accountId));
      return problem(
        c,
        'out_of_credit',
        `This account has ${balance} credits and an answered snapshot costs ${SNAPSHOT_PRICE}. Nothing was charged. ${howToBuy()}`,
        { ...limit, [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(balance) },
        // buyUrl only where credit can be bought: without payments it would lead nowhere (the detail says whom to ask).
        { balance, price: SNAPSHOT_PRICE, ...(purchasingEnabled(ctx.config) ? { buyUrl: `${ctx.config.baseUrl}/account/api-keys` } : {}) },
      );
    },
  };
}

/** The REST app: an OpenAPIHono whose routes are declared with createRoute (validated by zod, described in the document). */
export function restApp(): RestApi {
  return new OpenAPIHono<RestEnv>();
}

/**
 * Binds a declared route (createRoute) to its handler on the REST app: the route's middleware, then its
 * validators (a failure goes to `hook`), then the handler. Handlers answer with a plain Response: the
 * document's schemas are components, not typed responses.
 */
export function bind<R extends RouteConfig>(
  api: RestApi,
  route: R,
  handler: (c: Parameters<RouteHandler<R, RestEnv>>[0]) => Response | Promise<Response>,
  hook?: (result: { success: boolean; error?: z.ZodError; target: string }, c: RestContext) => Response | undefined,
): void {
  api.openapi(route, handler as never, hook as never);
}
