// POST /api/mcp: the HTTP rules, the bearer gate, then the official SDK (createMcpHandler, stateless,
// both protocol legs) mounted with toNodeHandler. Order: Host -> Origin -> method -> Accept ->
// Content-Type -> body cap -> JSON -> bearer -> SDK.
import { clientIp } from '../http/client-ip.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AppContext } from '../context.ts';
import { verifyBearer, wwwAuthenticate } from '../auth/verify-bearer.ts';
import { drainRequest } from '../http/respond.ts';
import { requestId } from '../http/errors.ts';
import type { McpToolDefinition, McpCaller } from './tool-definition.ts';
import { MCP_TOOLS } from './registry.ts';
import { buildMcpServer, type ExchangeInfo } from './build-server.ts';
import { ServerPool } from './server-pool.ts';
import { MCP_MAX_BODY_BYTES, acceptsJsonAndSse, allowedHostnames, allowedOrigins, hostAllowed, isJsonContentType, originAllowed } from './http-rules.ts';

/** JSON-RPC code for a missing, malformed, expired or invalid bearer token (spec: Errors). */
export const AUTH_ERROR_CODE = -32010;

export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
  /** Built and idle 2026-07-28 server instances (reuse is visible in tests and the bench). */
  poolStats(): { built: number; idle: number };
}

export interface McpEndpointOptions {
  /** The tool registry to serve (tests may pass their own list); defaults to MCP_TOOLS. */
  tools?: readonly McpToolDefinition[];
}

type JsonRpcId = string | number | null;

// Long because: one closure holding the two protocol legs' server pools and the request handler they
// share (origin, auth, size and depth checks in the order the spec states them).
export function createMcpEndpoint(ctx: AppContext, opts: McpEndpointOptions = {}): McpEndpoint {
  const tools = opts.tools ?? MCP_TOOLS;
  const gatedNames = new Set(tools.filter((t) => t.access === 'gated').map((t) => t.name));
  const reportSdkError = (error: Error) => ctx.logger.debug({ err: error }, 'mcp sdk rejected or failed a request');
  const modernPool = new ServerPool(() => buildMcpServer(ctx, tools, 'modern'));
  const sdk = createMcpHandler(({ era }) => (era === 'modern' ? modernPool.acquire() : buildMcpServer(ctx, tools, 'legacy')), {
    legacy: 'stateless',
    onerror: reportSdkError,
    maxRequestBodySize: MCP_MAX_BODY_BYTES,
  });
  const serve = toNodeHandler(sdk, { onerror: reportSdkError, maxRequestBodySize: MCP_MAX_BODY_BYTES });

  // The allowlists follow the config (with port 0 the base URL is final only once the server listens).
  let lists: { key: string; hosts: Set<string>; origins: Set<string> } | undefined;
  const allowlists = () => {
    const key = `${ctx.config.baseUrl} ${ctx.config.host} ${ctx.config.mcpAllowedOrigins.join(',')}`;
    if (lists?.key !== key) lists = { key, hosts: allowedHostnames(ctx.config), origins: allowedOrigins(ctx.config) };
    return lists;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { hosts, origins } = allowlists();
    if (!hostAllowed(req.headers.host, hosts)) {
      return reject(req, res, 403, -32000, `Host "${req.headers.host ?? ''}" is not this service's host; request refused (DNS-rebinding protection).`);
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, origins, req.headers.host)) {
      return reject(
        req,
        res,
        403,
        -32000,
        `Origin "${origin}" is not allowed to call this endpoint. Allowed origins are the service's own and MCP_ALLOWED_ORIGINS.`,
      );
    }
    if (origin) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-expose-headers', 'WWW-Authenticate, Mcp-Protocol-Version, X-Request-Id');
    }
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'OPTIONS' && origin) {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    if (method !== 'POST') {
      return reject(req, res, 405, -32000, `Method ${method} is not allowed: this endpoint is stateless and takes POST only.`, { allow: 'POST' });
    }
    if (!acceptsJsonAndSse(req.headers.accept)) {
      return reject(req, res, 406, -32000, 'Not Acceptable: the Accept header must list both application/json and text/event-stream.');
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      return reject(req, res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json.');
    }
    const raw = await readCapped(req, MCP_MAX_BODY_BYTES);
    if (raw === null) {
      // readCapped drained the rest (up to DRAIN_MAX_BYTES), so the client is done sending and reads the 413.
      return reject(req, res, 413, -32600, `Request body too large: the limit for /api/mcp is ${MCP_MAX_BODY_BYTES} bytes.`, { connection: 'close' });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return reject(req, res, 400, -32700, 'Parse error: the body is not valid JSON.');
    }
    const id = echoableId(body);
    try {
      await answer(req, res, body, id);
    } catch (err) {
      // Past the parse every failure is answered in JSON-RPC with the request's id (a database gone
      // during the bearer check included), never the router's plain 500: in-band on HTTP 200, as the
      // SDK answers a handler's -32603, so every client reads it as the answer to its own request.
      ctx.logger.error({ requestId: requestId(req), err }, 'mcp request failed');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      return reject(req, res, 200, -32603, 'Internal error', {}, id);
    }
  }

  /** Everything after the body is parsed: depth, the initialize params, the bearer gate, then the SDK. */
  async function answer(req: IncomingMessage, res: ServerResponse, body: unknown, id: JsonRpcId): Promise<void> {
    const depth = jsonDepthOver(body, MAX_JSON_DEPTH);
    if (depth) {
      ctx.logger.warn({ requestId: requestId(req), limit: MAX_JSON_DEPTH }, 'mcp request refused: JSON nested too deep');
      return reject(req, res, 400, -32600, `Invalid Request: the JSON is nested more than ${MAX_JSON_DEPTH} levels deep.`, {}, id);
    }
    // Only the 2025 leg has an `initialize` handshake; on the modern leg the SDK answers -32601.
    const modernLeg = String(req.headers['mcp-protocol-version'] ?? '') >= '2026';
    const badInit = modernLeg ? undefined : initializeParamsProblem(body);
    if (badInit) return reject(req, res, 400, -32602, `Invalid params for initialize: ${badInit}.`, {}, id);

    const verdict = await verifyBearer(ctx, req.headers.authorization);
    if (verdict.kind === 'invalid') {
      return reject(
        req,
        res,
        401,
        AUTH_ERROR_CODE,
        verdict.wrongKind
          ? `${verdict.reason} An MCP client signs in with OAuth (${ctx.config.baseUrl}/connect shows how); renewing the key would not help.`
          : `${verdict.reason} Renew the token (repeat the token exchange or sign in again) and retry; an invalid token is never treated as anonymous.`,
        { 'www-authenticate': wwwAuthenticate(ctx, { error: 'invalid_token' }) },
        id,
      );
    }
    const caller: McpCaller | null = verdict.kind === 'valid' ? verdict.caller : null;
    const gated = gatedToolCalled(body, gatedNames);
    if (gated && !caller) {
      return reject(
        req,
        res,
        401,
        AUTH_ERROR_CODE,
        `${gated} needs sign-in. Follow the WWW-Authenticate header (resource_metadata) to start OAuth, then call it again with the bearer token.`,
        { 'www-authenticate': wwwAuthenticate(ctx, { scope: 'mcp' }) },
        id,
      );
    }
    if (gated && caller && !caller.scopes.includes('mcp')) {
      return reject(
        req,
        res,
        403,
        AUTH_ERROR_CODE,
        `${gated} needs a claimed account (scope mcp); this token opens public tools only. Have the user complete the claim, then exchange the identity assertion again.`,
        { 'www-authenticate': wwwAuthenticate(ctx, { error: 'insufficient_scope', scope: 'mcp' }) },
        id,
      );
    }

    const info: ExchangeInfo = { caller, requestId: requestId(req), clientIp: clientIp(req, ctx.config) };
    (req as IncomingMessage & { auth?: unknown }).auth = {
      token: caller ? bearerOf(req.headers.authorization) : '',
      clientId: caller?.clientId ?? '',
      scopes: caller?.scopes ?? [],
      extra: info as unknown as Record<string, unknown>,
    };
    await serve(req as Parameters<typeof serve>[0], res, body);
  }

  return { handle, close: () => sdk.close(), poolStats: () => ({ built: modernPool.built, idle: modernPool.idleCount }) };
}

function bearerOf(header: string | undefined): string {
  return header?.replace(/^Bearer\s+/i, '') ?? '';
}

/** The name of the first gated tool a tools/call body asks for (batches included), if any. */
function gatedToolCalled(body: unknown, gated: Set<string>): string | undefined {
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/call' && typeof params?.name === 'string' && gated.has(params.name)) return params.name;
  }
  return undefined;
}

/** JSON-RPC bodies here are shallow (tool arguments are an address or a status): deeper is refused before the SDK. */
export const MAX_JSON_DEPTH = 64;

/** True when the value nests deeper than max (iterative: a deep value cannot overflow the stack here). */
function jsonDepthOver(value: unknown, max: number): boolean {
  // Runs on every request: two parallel stacks (values, depths), no pair or values() array per object.
  const values: object[] = [];
  const depths: number[] = [];
  if (value !== null && typeof value === 'object') {
    values.push(value);
    depths.push(1);
  }
  while (values.length > 0) {
    const v = values.pop()! as Record<string, unknown>;
    const d = depths.pop()!;
    if (d > max) return true;
    if (Array.isArray(v)) {
      for (const child of v) {
        if (child !== null && typeof child === 'object') {
          values.push(child as object);
          depths.push(d + 1);
        }
      }
    } else {
      for (const k in v) {
        const child = v[k];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(d + 1);
        }
      }
    }
  }
  return false;
}

/** What is wrong with an `initialize` request's params (the 2025 leg's handshake), in a few words; undefined when sound. */
function initializeParamsProblem(body: unknown): string | undefined {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!m || typeof m !== 'object' || (m as { method?: unknown }).method !== 'initialize') continue;
    const p = (m as { params?: unknown }).params as Record<string, unknown> | undefined;
    const meta = p && typeof p === 'object' ? (p._meta as Record<string, unknown> | undefined) : undefined;
    if (meta && typeof meta === 'object' && 'io.modelcontextprotocol/protocolVersion' in meta) continue; // a modern envelope
    if (!p || typeof p !== 'object' || Array.isArray(p)) return 'params must be an object with protocolVersion, capabilities and clientInfo';
    if (typeof p.protocolVersion !== 'string') return 'protocolVersion must be a string';
    if (!p.capabilities || typeof p.capabilities !== 'object' || Array.isArray(p.capabilities)) return 'capabilities must be an object';
    const info = p.clientInfo as Record<string, unknown> | undefined;
    if (!info || typeof info !== 'object' || typeof info.name !== 'string' || typeof info.version !== 'string')
      return 'clientInfo must be an object with string name and version';
  }
  return undefined;
}

function echoableId(body: unknown): JsonRpcId {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Reads the body, or returns null past the cap (the rest is drained, not buffered). Events, not an async iterator: this runs on every call. */
function readCapped(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) return drainRequest(req).then(() => null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        chunks.length = 0;
        ended = true;
        // Drop the rest, then answer: a refusal sent mid-upload reaches the client as a reset.
        void drainRequest(req, size).then(() => resolve(null));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (ended) return;
      ended = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.once('error', reject);
    // Destroyed without an error (no 'end' will come): settle, so nothing waits on a gone request.
    req.once('close', () => {
      if (!ended) reject(new Error('the request was closed before its body ended'));
    });
  });
}

function reject(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: JsonRpcId = null,
): void {
  const payload = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, data: { requestId: requestId(req) } } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}
