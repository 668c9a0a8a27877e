// Shared by the REST tests: fetch helpers for /api/v1 and the few setup steps that have no HTTP
// surface of their own (granting credit is the operator's CLI, which calls addCredit like this).
import assert from 'node:assert/strict';
import type { AppContext } from '../src/context.ts';
import { addCredit } from '../src/billing/credit-ledger.ts';

export interface ApiReply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function api(
  baseUrl: string,
  path: string,
  opts: { token?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiReply> {
  const headers: Record<string, string> = { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, { method: opts.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function createKey(baseUrl: string, userJwt: string, name = 'test'): Promise<{ id: string; key: string; prefix: string }> {
  const r = await api(baseUrl, '/api/v1/keys', { token: userJwt, body: { name } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

export async function accountIdOf(ctx: AppContext, email: string): Promise<string> {
  const rows = await ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [email]);
  assert.ok(rows[0], `no account ${email}`);
  return rows[0].account_id;
}

export async function grant(ctx: AppContext, accountId: string, credits: number): Promise<number> {
  const r = await addCredit(ctx, { accountId, kind: 'grant', credits, reference: 'test grant' });
  return r.balance;
}

export function checkPath(address: string): string {
  return `/api/v1/sites/check?${new URLSearchParams({ address })}`;
}

/** Every Access-Control-* header of a response (CORS is off on /api/v1: there must be none). */
export function corsHeaders(h: Headers): string[] {
  return [...h.keys()].filter((k) => k.toLowerCase().startsWith('access-control-'));
}

export const COVERED = '11 Acorn St, Cambridge, MA';
export const COVERED_2 = '57 Inman St, Cambridge, MA';
export const OUTSIDE = '1 Main St, Springfield, IL';
