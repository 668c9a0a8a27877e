// The prepaid public REST API under /api/v1: a thin adapter over the core snapshot and the billing
// room. A paid call is a pipeline:
//   authenticate -> rateLimit -> readInput -> claimIdempotency -> snapshot -> charge -> respond.
// Only an answered snapshot is charged (one credit); answered:false and bad input are free. CORS is
// off: no response under /api/v1 carries an Access-Control-Allow-* header, preflights included, so a
// browser page on another origin cannot spend an account's credit with a key it holds.
import { currentAccount } from '../web/web-session.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Handler, Router } from '../http/router.ts';
import { readBody, requestId } from '../http/respond.ts';
import { rateLimitHeaders } from '../http/geo-coverage-route.ts';
import { POINT_MISSPELLINGS } from '../core/point-spelling.ts';
import { verifyBearer, wwwAuthenticate, type Caller } from '../auth/verify-bearer.ts';
import type { RatePolicy } from '../core/rate-limit.ts';
import { cachedSnapshot, peekCachedSnapshot, type CachedSnapshot } from '../core/snapshot-cache.ts';
import { withSourcesInline } from '../places/source-catalogue.ts';
import type { Snapshot } from '../core/snapshot-types.ts';
import { resolveCoverage } from '../core/snapshot.ts';
import { cityInventory, probeCoverage } from '../core/city-inventory.ts';
import type { DistrictRulesView } from '../rules/district-view.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import { countApiRequest, countPaidApiRequest, createApiKey, listApiKeys, revokeApiKey, type ChargeOutcome, type ChargeRequest } from '../billing/api-keys.ts';
import { creditBalance, spendCredit, usageOf, SNAPSHOT_PRICE } from '../billing/credit-ledger.ts';
import { claimIdempotencyKey, IDEMPOTENCY_KEY_MAX, releaseIdempotencyKey, requestDigest, storeFreeResponse } from '../billing/idempotency.ts';
import { applyStripeWebhook, purchasingEnabled } from '../billing/payments.ts';
import { problemForStatus, sendFailure, sendProblem, API_REFERENCE_PATH } from './problem.ts';
import { CoverageQuery, KeyCreateBody, SiteCheckBody, SiteCheckQuery, issueList } from './schemas.ts';
import type { Coverage } from '../core/snapshot-types.ts';
import type { PlaceSummary } from '../core/city-inventory.ts';
import { buildOpenApiDocument, renderApiReference } from './openapi.ts';
import { listVintages, type VintageRecord } from '../importer/update-place.ts';
import { exportUsage } from '../reports/export-store.ts';

export const API_PREFIX = '/api/v1';
export const STRIPE_WEBHOOK_PATH = '/api/billing/stripe/webhook';
/** Per key (or per account for user tokens), counted in the database so every instance agrees. */
export const API_RATE_LIMIT: RatePolicy = { bucket: 'api_v1', limit: 6_000, windowSeconds: 60 };
const JSON_BODY_MAX = 16 * 1024;
const WEBHOOK_BODY_MAX = 512 * 1024;
export const CREDITS_CHARGED = 'siteline-credits-charged';
export const CREDITS_REMAINING = 'siteline-credits-remaining';

type Authed = { caller: Caller & { accountId: string }; limit: Record<string, string>; charge?: ChargeOutcome };

export function registerRestRoutes(router: Router, ctx: AppContext): void {
  const guard =
    (fn: (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => Promise<void>): Handler =>
    async (req, res, params) => {
      try {
        await fn(req, res, params);
      } catch (err) {
        sendFailure(ctx, req, res, err);
      }
    };
  const route = (path: string, handlers: Partial<Record<'GET' | 'POST' | 'DELETE', (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => Promise<void>>>) => {
    const allowed = Object.keys(handlers);
    for (const [method, fn] of Object.entries(handlers)) router.add(method, path, guard(fn!));
    // Any other method (OPTIONS preflights included): 405 with no CORS header.
    router.add('*', path, (req, res) => sendProblem(ctx, req, res, 'method_not_allowed', `${req.method} is not allowed on ${path}. Allowed: ${allowed.join(', ')}.`, { allow: allowed.join(', ') }));
  };

  /**
   * The caller, after the token check and the rate limit; null when a problem was sent. With a
   * charge (a paid call whose answer is known), the same statement settles the bill: `charge` says
   * what was charged and the balance after it (nothing is charged when the rate limit refuses).
   */
  async function authenticate(req: IncomingMessage, res: ServerResponse, charge?: ChargeRequest): Promise<Authed | null> {
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
  }

  async function readJson(req: IncomingMessage, res: ServerResponse): Promise<{ ok: true; value: unknown } | { ok: false }> {
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
  }

  function invalid(req: IncomingMessage, res: ServerResponse, error: z.ZodError, headers: Record<string, string> = {}): void {
    const errors = issueList(error, (req.method ?? 'GET').toUpperCase() === 'POST' ? '(body)' : '(query)');
    sendProblem(ctx, req, res, 'bad_request', errors.map((e) => `${e.path}: ${e.message}`).join('; '), headers, { errors });
  }

  // ---- the priced unit ----------------------------------------------------------------------------

  async function outOfCredit(req: IncomingMessage, res: ServerResponse, limit: Record<string, string>, accountId: string, seen: number): Promise<void> {
    // The net balance: below zero when a refund or dispute took back credit already spent (owed).
    const balance = Math.min(seen, await creditBalance(ctx.db, accountId));
    sendProblem(
      ctx,
      req,
      res,
      'out_of_credit',
      `This account has ${balance} credits and an answered snapshot costs ${SNAPSHOT_PRICE}. Nothing was charged. ${howToBuy(ctx)}`,
      { ...limit, [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(balance) },
      // buyUrl only where credit can be bought: without payments it would lead nowhere (the detail says whom to ask).
      { balance, price: SNAPSHOT_PRICE, ...(purchasingEnabled(ctx.config) ? { buyUrl: `${ctx.config.baseUrl}/account/api-keys` } : {}) },
    );
  }

  async function siteCheck(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'HEAD') {
      return sendProblem(ctx, req, res, 'method_not_allowed', 'HEAD is not allowed on a paid call. Allowed: GET, POST.', { allow: 'GET, POST' });
    }
    // A GET's query is read once: for the cached-answer path here, and for the steps below.
    const query = method !== 'POST' ? SiteCheckQuery.safeParse(Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams)) : undefined;
    // A GET whose answer is already in the snapshot cache (no Idempotency-Key): key check, rate limit
    // and charge in one statement. Everything else takes the steps one by one below.
    // (include=sources answers are made per call, below)
    if (method === 'GET' && query?.success && req.headers['idempotency-key'] === undefined && query.data.include !== 'sources') {
      const known = peekCachedSnapshot(ctx, query.data.address);
      if (known) return siteCheckKnown(req, res, known);
    }
    const authed = await authenticate(req, res);
    if (!authed) return;
    const { caller, limit } = authed;
    let parsed: NonNullable<typeof query> | ReturnType<typeof SiteCheckBody.safeParse>;
    if (method === 'POST') {
      const body = await readJson(req, res);
      if (!body.ok) return;
      parsed = SiteCheckBody.safeParse(body.value);
    } else {
      parsed = query!;
    }
    if (!parsed.success) return invalid(req, res, parsed.error, { ...limit, [CREDITS_CHARGED]: '0' });
    const address = parsed.data.address;

    const idemKey = req.headers['idempotency-key'];
    let idem: string | undefined;
    if (idemKey !== undefined) {
      const key = String(idemKey);
      if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key)) {
        return sendProblem(ctx, req, res, 'bad_request', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters (a UUID is a good choice).`, limit);
      }
      const claim = await claimIdempotencyKey(ctx, caller.accountId, key, requestDigest('CHECK', `${API_PREFIX}/sites/check`, JSON.stringify({ address })));
      if (claim.kind === 'mismatch') {
        return sendProblem(ctx, req, res, 'idempotency_key_reused', 'This Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request. Nothing was charged.', limit);
      }
      if (claim.kind === 'in_flight') {
        return sendProblem(ctx, req, res, 'conflict', 'A request with this Idempotency-Key is still being processed; retry in a moment.', { ...limit, 'retry-after': '1' });
      }
      if (claim.kind === 'replay') {
        const balance = await creditBalance(ctx.db, caller.accountId);
        const type = claim.response.statusCode >= 400 ? 'application/problem+json' : 'application/json; charset=utf-8';
        return sendRaw(res, claim.response.statusCode, claim.response.body, type, {
          ...limit,
          'idempotent-replayed': 'true',
          [CREDITS_CHARGED]: '0',
          [CREDITS_REMAINING]: String(balance),
        });
      }
      idem = key;
    }

    try {
      // The core refuses some texts as bad input (e.g. two street addresses): a free 400 via sendFailure.
      const cached = await cachedSnapshot(ctx, address);
      // ?include=sources: the place's sources in full, inline (docs/snapshot.md, "Sources").
      const snapshot = parsed.data.include === 'sources' ? inlineSources(await withSourcesInline(ctx, cached.snapshot)) : cached;
      const json = snapshot.json;
      const body = encodedBody(snapshot);
      if (!snapshot.snapshot.answered) {
        const balance = await creditBalance(ctx.db, caller.accountId);
        if (idem) await storeFreeResponse(ctx, caller.accountId, idem, 200, json, balance);
        return sendRaw(res, 200, body, 'application/json; charset=utf-8', { ...limit, [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(balance) });
      }
      const spent = await spendCredit(ctx, {
        accountId: caller.accountId,
        keyId: caller.keyId ?? null,
        reference: `sites/check ${requestId(req)}`,
        ...(idem ? { idempotency: { key: idem, statusCode: 200, body: json } } : {}),
      });
      if (!spent.ok) {
        if (idem) await releaseIdempotencyKey(ctx, caller.accountId, idem);
        return outOfCredit(req, res, limit, caller.accountId, spent.balance);
      }
      return sendRaw(res, 200, body, 'application/json; charset=utf-8', { ...limit, [CREDITS_CHARGED]: String(spent.charged), [CREDITS_REMAINING]: String(spent.balance) });
    } catch (err) {
      // The call's own failure is what the caller hears; a key left held is logged (a retry with it waits).
      if (idem)
        await releaseIdempotencyKey(ctx, caller.accountId, idem).catch((releaseErr) =>
          ctx.logger.error({ accountId: caller.accountId, err: releaseErr instanceof Error ? releaseErr.message : String(releaseErr) }, 'idempotency key not released after a failed call'),
        );
      throw err;
    }
  }

  /** A paid call whose snapshot is known: the bill is settled by the key check's statement, which has committed here. */
  async function siteCheckKnown(req: IncomingMessage, res: ServerResponse, known: CachedSnapshot): Promise<void> {
    const answered = known.snapshot.answered;
    const authed = await authenticate(req, res, { charge: answered, reference: `sites/check ${requestId(req)}` });
    if (!authed) return;
    const bill = authed.charge!;
    if (answered && bill.charged === 0) return outOfCredit(req, res, authed.limit, authed.caller.accountId!, bill.balance);
    sendRaw(res, 200, encodedBody(known), 'application/json; charset=utf-8', { ...authed.limit, [CREDITS_CHARGED]: String(bill.charged), [CREDITS_REMAINING]: String(bill.balance) });
  }
  route(`${API_PREFIX}/sites/check`, { GET: siteCheck, POST: siteCheck });

  // ---- free lookups -------------------------------------------------------------------------------

  route(`${API_PREFIX}/coverage`, {
    GET: async (req, res) => {
      const authed = await authenticate(req, res);
      if (!authed) return;
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      // One spelling of a point (lat, lng): another is refused by name, never silently ignored.
      const misspelled = [...params.keys()].filter((k) => Object.hasOwn(POINT_MISSPELLINGS, k));
      if (misspelled.length) {
        const errors = misspelled.map((k) => ({ path: k, message: `a point is given as lat and lng: "${k}" is spelled "${POINT_MISSPELLINGS[k]}" here` }));
        return sendProblem(ctx, req, res, 'bad_request', errors.map((e) => `${e.path}: ${e.message}`).join('; '), authed.limit, { errors });
      }
      const parsed = CoverageQuery.safeParse(Object.fromEntries(params));
      if (!parsed.success) return invalid(req, res, parsed.error, authed.limit);
      sendJsonBody(res, 200, await coverageAnswer(ctx, parsed.data), { ...authed.limit, [CREDITS_CHARGED]: '0' });
    },
  });

  route(`${API_PREFIX}/usage`, {
    GET: async (req, res) => {
      const authed = await authenticate(req, res);
      if (!authed) return;
      const [usage, exports] = await Promise.all([usageOf(ctx, authed.caller.accountId), exportUsage(ctx, authed.caller.accountId)]);
      const reportExports = { meter: 'records.exports', ...exports };
      sendJsonBody(res, 200, { ...usage, purchasing: { enabled: purchasingEnabled(ctx.config), how: howToBuy(ctx) }, reportExports }, { ...authed.limit, [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(usage.balance) });
    },
  });

  // ---- key management (user tokens only: a key cannot mint or revoke keys) ----------------------------

  async function keyManager(req: IncomingMessage, res: ServerResponse): Promise<Authed | null> {
    const authed = await authenticate(req, res);
    if (!authed) return null;
    if (authed.caller.tokenType !== 'jwt') {
      sendProblem(ctx, req, res, 'forbidden', 'API keys cannot create, list or revoke keys. Use a user access token (scope mcp) or the account page.', authed.limit);
      return null;
    }
    return authed;
  }

  route(`${API_PREFIX}/keys`, {
    GET: async (req, res) => {
      const authed = await keyManager(req, res);
      if (!authed) return;
      sendJsonBody(res, 200, { keys: await listApiKeys(ctx, authed.caller.accountId) }, authed.limit);
    },
    POST: async (req, res) => {
      const authed = await keyManager(req, res);
      if (!authed) return;
      const body = await readJson(req, res);
      if (!body.ok) return;
      const parsed = KeyCreateBody.safeParse(body.value);
      if (!parsed.success) return invalid(req, res, parsed.error, authed.limit);
      const created = await createApiKey(ctx, authed.caller.accountId, parsed.data.name);
      sendJsonBody(res, 201, created, { ...authed.limit, location: `${API_PREFIX}/keys/${created.id}` });
    },
  });

  route(`${API_PREFIX}/keys/:id`, {
    DELETE: async (req, res, params) => {
      const authed = await keyManager(req, res);
      if (!authed) return;
      if (!(await revokeApiKey(ctx, authed.caller.accountId, params.id ?? ''))) {
        return sendProblem(ctx, req, res, 'not_found', `This account holds no key with id "${params.id}".`, authed.limit);
      }
      res.writeHead(204, { ...authed.limit, 'cache-control': 'no-store' });
      res.end();
    },
  });

  // ---- the description of all this ---------------------------------------------------------------------

  let openapi: string | undefined;
  const openapiJson = () => (openapi ??= JSON.stringify(buildOpenApiDocument(ctx)));
  route(`${API_PREFIX}/openapi.json`, {
    GET: async (_req, res) => sendRaw(res, 200, openapiJson(), 'application/json; charset=utf-8', { 'cache-control': 'public, max-age=300' }),
  });
  router.get(API_REFERENCE_PATH, async (req, res) => {
    // The header says who is signed in, so a signed-in copy is never cached for anyone else.
    const account = await currentAccount(ctx, req);
    const page = renderApiReference(buildOpenApiDocument(ctx), account?.email ?? null);
    sendRaw(res, 200, page, 'text/html; charset=utf-8', {
      'cache-control': account ? 'private, no-store' : 'public, max-age=300',
      vary: 'cookie',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    });
  });

  // What the server answers itself under /api/v1 (a NUL byte in the URL, a foreign Host, an error
  // thrown past a handler) is a problem too, never the service's generic JSON envelope.
  router.errorResponderUnder(API_PREFIX, (req, res, status, _code, message, headers = {}) => sendProblem(ctx, req, res, problemForStatus(status), message, headers));

  // Everything else under /api/v1: a problem, not the service's generic 404.
  router.mount(API_PREFIX, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    sendProblem(ctx, req, res, 'not_found', `No endpoint ${req.method} ${path}. The endpoints are listed at ${ctx.config.baseUrl}${API_PREFIX}/openapi.json.`);
  });

  // ---- Stripe's webhook (not part of the public API) ---------------------------------------------------

  router.post(
    STRIPE_WEBHOOK_PATH,
    guard(async (req, res) => {
      if (!purchasingEnabled(ctx.config)) {
        req.resume();
        return sendProblem(ctx, req, res, 'not_found', 'Purchasing is not set up on this service.');
      }
      const raw = await readBody(req, WEBHOOK_BODY_MAX);
      const outcome = await applyStripeWebhook(ctx, raw, req.headers['stripe-signature'] as string | undefined);
      sendJsonBody(
        res,
        200,
        outcome.kind === 'credited'
          ? { received: true, credited: outcome.result.credited }
          : outcome.kind === 'clawed_back'
            ? { received: true, clawedBack: outcome.result }
            : { received: true, ignored: outcome.reason },
      );
    }),
  );
}

function howToBuy(ctx: AppContext): string {
  return purchasingEnabled(ctx.config)
    ? `Buy credit on ${ctx.config.baseUrl}/account/api-keys (card payment through Stripe Checkout).`
    : 'Purchasing is not set up on this service: ask its operator to grant credit (siteline credits grant <email> <credits>).';
}

/** The CoverageAnswer schema's shape. */
interface CoverageAnswerBody {
  query: string;
  coverage: Omit<Coverage, 'status'> & { status: Coverage['status'] | 'ambiguous' };
  placeStatus: string | null;
  candidates?: PlaceSummary[];
  rules?: DistrictRulesView;
  changes?: VintageRecord[];
}

async function coverageAnswer(ctx: AppContext, q: z.infer<typeof CoverageQuery>): Promise<CoverageAnswerBody> {
  if (q.address !== undefined) {
    const step = await resolveCoverage(ctx, parseAddress(q.address));
    if (step.kind === 'not_covered') return { query: q.address, coverage: step.coverage, placeStatus: step.place?.status ?? null };
    const p = step.place;
    return {
      query: q.address,
      coverage: {
        status: 'live',
        eligibilityKnown: true,
        geoDivisionId: p.geoDivisionId,
        place: { name: p.name, region: p.region, country: p.country },
        message: `${p.name}, ${p.region} is covered: a snapshot for this address is answered when the address matches a lot (answered:false is free).`,
      },
      placeStatus: p.status,
    };
  }
  const probe = await probeCoverage(
    ctx,
    q.city !== undefined
      ? { kind: 'name', city: q.city, region: q.region }
      : q.geoDivisionId !== undefined
        ? { kind: 'id', geoDivisionId: q.geoDivisionId }
        : { kind: 'point', latitude: q.lat!, longitude: q.lng! },
  );
  const place = probe.place;
  let rules: DistrictRulesView | undefined;
  if (q.district !== undefined && place) {
    const inv = await cityInventory(ctx, { kind: 'id', geoDivisionId: place.geoDivisionId, district: q.district });
    if (inv.kind === 'inventory') rules = inv.rules.district;
  }
  return {
    query: probe.query,
    coverage: {
      status: probe.status,
      eligibilityKnown: probe.eligibilityKnown,
      message: probe.message,
      ...(place ? { geoDivisionId: place.geoDivisionId, place: { name: place.name, region: place.region, country: place.country } } : {}),
    },
    placeStatus: place?.status ?? null,
    ...(probe.candidates ? { candidates: probe.candidates } : {}),
    ...(rules ? { rules } : {}),
    // Which lots changed zoning since a date: the change log of each import since then (data update).
    ...(q.changesSince !== undefined && place ? { changes: (await listVintages(ctx, place.geoDivisionId)).filter((v) => v.importedAt.slice(0, 10) >= q.changesSince!) } : {}),
  };
}

/** A snapshot with its sources inline (include=sources): made per call, in the cached entry's shape. */
function inlineSources(snapshot: Snapshot): { snapshot: Snapshot; json: string } {
  return { snapshot, json: JSON.stringify(snapshot) };
}

// A cached snapshot's answer, encoded once: a cache hit returns the same object, so its bytes are kept
// beside it (and go when it leaves the cache) instead of being UTF-8 encoded and measured per call.
const encoded = new WeakMap<object, Buffer>();

function encodedBody(snapshot: { json: string }): Buffer {
  let b = encoded.get(snapshot);
  if (!b) encoded.set(snapshot, (b = Buffer.from(snapshot.json, 'utf8')));
  return b;
}

function sendRaw(res: ServerResponse, status: number, body: string | Buffer, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}

function sendJsonBody(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendRaw(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers);
}
