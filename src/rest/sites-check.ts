// GET|POST /api/v1/sites/check: the priced unit. A paid call is a pipeline:
//   authenticate (token, rate limit) -> read the address -> sellAnswer (billing: claim the Idempotency-Key ->
//   snapshot -> spend on an answered one -> release when nothing was stored) -> respond.
// Only an answered snapshot is charged (one credit); answered:false and bad input are free. A GET whose
// answer is already in the snapshot cache (no Idempotency-Key) settles key check, rate limit and charge in
// one statement.
import { createRoute } from '@hono/zod-openapi';
import { requestId } from '../http/errors.ts';
import { cachedSnapshot, peekCachedSnapshot, type CachedSnapshot } from '../snapshot/answer-cache.ts';
import { withSourcesInline } from '../snapshot/source-catalogue.ts';
import type { Snapshot } from '../core/snapshot-types.ts';
import { SNAPSHOT_PRICE } from '../billing/credit-ledger.ts';
import { IDEMPOTENCY_KEY_MAX } from '../billing/idempotency.ts';
import { sellAnswer } from '../billing/paid-call.ts';
import { SiteCheckBody, SiteCheckQuery } from './schemas.ts';
import { API_PREFIX, CREDITS_CHARGED, CREDITS_REMAINING, respond, type RestApi, type RestContext, type RestKit, bind } from './kit.ts';
import { common401_429, creditHeaders, EXAMPLE_ADDRESS, problem, rateHeaders, ref, withExample } from './openapi-parts.ts';

export const SITES_CHECK_PATH = `${API_PREFIX}/sites/check`;
const JSON_TYPE = 'application/json; charset=utf-8';

// ---- the declarations: path, zod request and responses, OpenAPI text ----------------------------------

const checkResponses = {
  '200': {
    description: `The snapshot, exactly as the MCP tool getFeasibilitySnapshot returns it. An answered snapshot costs ${SNAPSHOT_PRICE} credit; answered:false is free.`,
    headers: {
      ...creditHeaders,
      ...rateHeaders,
      'Idempotent-Replayed': {
        description: 'true when this is the stored response of an earlier request with the same Idempotency-Key.',
        schema: { type: 'string' as const },
      },
    },
    content: { 'application/json': { schema: ref('Snapshot') } },
  },
  '400': problem('bad_request', 'The address is missing, empty, too long or not one street address. Free.'),
  ...common401_429,
  '402': problem('out_of_credit', 'The balance is below the price; nothing was spent. The body says how to buy more.'),
  '409': problem('conflict', 'A request with the same Idempotency-Key is still running; retry in a moment.'),
  '422': problem('idempotency_key_reused', 'The Idempotency-Key was used with another request.'),
};
const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description: `Up to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters. A retry with the same key within 24 hours returns the stored response and is not charged again; the same key with another address answers 422.`,
  schema: { type: 'string' as const, maxLength: IDEMPOTENCY_KEY_MAX },
  example: 'order-2026-0001',
};

export const checkSiteGet = createRoute({
  method: 'get',
  path: SITES_CHECK_PATH,
  operationId: 'checkSiteGet',
  summary: 'Feasibility snapshot for one address (paid)',
  request: { query: withExample(SiteCheckQuery, { address: EXAMPLE_ADDRESS }) },
  parameters: [idempotencyHeader],
  responses: checkResponses,
});

export const checkSitePost = createRoute({
  method: 'post',
  path: SITES_CHECK_PATH,
  operationId: 'checkSite',
  summary: 'Feasibility snapshot for one address (paid), with an optional Idempotency-Key',
  parameters: [idempotencyHeader],
  request: { body: { required: true, content: { 'application/json': { schema: SiteCheckBody, example: { address: EXAMPLE_ADDRESS } } } } },
  responses: { ...checkResponses, '413': problem('payload_too_large'), '415': problem('unsupported_media_type', 'The body is not sent as application/json.') },
});

// ---- the handlers ----------------------------------------------------------------------------------------

type Stated = { district?: string | undefined; buildingType?: string | undefined; conditions?: string | string[] | undefined; lotId?: string | undefined };

export function registerSitesCheck(api: RestApi, kit: RestKit): void {
  const { ctx } = kit;
  const free = kit.invalidHook({ [CREDITS_CHARGED]: '0' });

  /**
   * Before the token check: a HEAD is refused (a paid call has no headers-only form); a GET whose answer is
   * already in the snapshot cache (no Idempotency-Key) settles key check, rate limit and charge in one
   * statement and answers here. Everything else is authenticated, then validated, then sold.
   */
  async function paidCallGate(c: RestContext, next: () => Promise<void>): Promise<Response | void> {
    const method = c.env.incoming.method;
    if (method === 'HEAD') return kit.problem(c, 'method_not_allowed', 'HEAD is not allowed on a paid call. Allowed: GET, POST.', { allow: 'GET, POST' });
    if (method === 'GET' && c.env.incoming.headers['idempotency-key'] === undefined) {
      // (include=sources answers are made per call, in the handler)
      const query = SiteCheckQuery.safeParse(c.req.query());
      if (query.success && query.data.include !== 'sources') {
        const known = peekCachedSnapshot(ctx, query.data.address, statedOf(query.data));
        if (known) return siteCheckKnown(c, known);
      }
    }
    return kit.authenticate(c, next);
  }

  /** A paid call whose snapshot is known: the bill is settled by the key check's statement, which has committed here. */
  async function siteCheckKnown(c: RestContext, known: CachedSnapshot): Promise<Response> {
    const answered = billable(known.snapshot);
    const authed = await kit.authenticateCharged(c, { charge: answered, reference: `sites/check ${requestId(c.env.incoming)}` });
    if (authed instanceof Response) return authed;
    const bill = authed.charge!;
    if (answered && bill.charged === 0) return kit.outOfCredit(c, authed.limit, authed.caller.accountId, bill.balance);
    return respond(200, encodedBody(known), {
      'content-type': JSON_TYPE,
      'cache-control': 'no-store',
      ...authed.limit,
      [CREDITS_CHARGED]: String(bill.charged),
      [CREDITS_REMAINING]: String(bill.balance),
    });
  }

  async function sell(c: RestContext, input: { address: string; include?: 'sources' | undefined } & Stated): Promise<Response> {
    const { caller, limit } = c.get('authed');
    const { address, include } = input;
    const stated = statedOf(input);
    const idemKey = c.env.incoming.headers['idempotency-key'];
    let idempotency: { key: string; method: string; path: string; body: string } | undefined;
    if (idemKey !== undefined) {
      const key = String(idemKey);
      if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key)) {
        return kit.problem(c, 'bad_request', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters (a UUID is a good choice).`, limit);
      }
      idempotency = { key, method: 'CHECK', path: SITES_CHECK_PATH, body: JSON.stringify(stated ? { address, ...stated } : { address }) };
    }

    // The core refuses some texts as bad input (e.g. two street addresses): thrown, a free 400 problem (src/http/errors.ts).
    const outcome = await sellAnswer(
      ctx,
      {
        accountId: caller.accountId,
        keyId: caller.keyId ?? null,
        reference: `sites/check ${requestId(c.env.incoming)}`,
        ...(idempotency ? { idempotency } : {}),
      },
      async () => {
        const cached = await cachedSnapshot(ctx, address, stated);
        // ?include=sources: the place's sources in full, inline (docs/snapshot.md, "Sources").
        const answer = include === 'sources' ? inlineSources(await withSourcesInline(ctx, cached.snapshot)) : cached;
        return { answered: billable(answer.snapshot), json: answer.json, answer };
      },
    );
    const sent = (body: string | Buffer, headers: Record<string, string>) =>
      respond(200, body, { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...limit, ...headers });
    switch (outcome.kind) {
      case 'key_reused':
        return kit.problem(
          c,
          'idempotency_key_reused',
          'This Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request. Nothing was charged.',
          limit,
        );
      case 'in_flight':
        return kit.problem(c, 'conflict', 'A request with this Idempotency-Key is still being processed; retry in a moment.', { ...limit, 'retry-after': '1' });
      case 'replayed':
        return sent(outcome.json, { 'idempotent-replayed': 'true', [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(outcome.balance) });
      case 'free':
        return sent(encodedBody(outcome.answer.answer), { [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(outcome.balance) });
      case 'charged':
        return sent(encodedBody(outcome.answer.answer), { [CREDITS_CHARGED]: String(outcome.charged), [CREDITS_REMAINING]: String(outcome.balance) });
      case 'out_of_credit':
        return kit.outOfCredit(c, limit, caller.accountId, outcome.balance);
    }
  }

  bind(api, { ...checkSiteGet, middleware: [paidCallGate] }, (c) => sell(c, c.req.valid('query')), free);
  bind(api, { ...checkSitePost, middleware: [kit.authenticate, kit.jsonBody] }, (c) => sell(c, c.req.valid('json')), free);
}

/** The district, building type, conditions and picked lot a caller stated, when any (src/snapshot/stated-district.ts); a query's conditions are separated by ";". */
function statedOf(q: Stated): { district?: string; buildingType?: string; conditions?: string[]; lotId?: string } | undefined {
  const conditions = (typeof q.conditions === 'string' ? q.conditions.split(';') : (q.conditions ?? [])).map((c) => c.trim()).filter(Boolean);
  if (!q.district && !q.buildingType && !conditions.length && !q.lotId) return undefined;
  return {
    ...(q.district ? { district: q.district } : {}),
    ...(q.buildingType ? { buildingType: q.buildingType } : {}),
    ...(conditions.length ? { conditions } : {}),
    ...(q.lotId ? { lotId: q.lotId } : {}),
  };
}

/** Charged: an answered snapshot, except one that only asks for the district (a place without a zoning map): that one is free. */
function billable(s: Snapshot): boolean {
  return s.answered && s.districtChoice?.needs !== 'district';
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
