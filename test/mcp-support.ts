// Shared by the MCP tests: the official client on either leg, and raw JSON-RPC over fetch.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import assert from 'node:assert/strict';

export const MODERN = '2026-07-28';
export const ACCEPT_BOTH = 'application/json, text/event-stream';

export type Leg = 'modern' | 'legacy';

/** The SDK client connected to /api/mcp on one leg, with an optional bearer token. */
export async function connectClient(baseUrl: string, leg: Leg, token?: string): Promise<Client> {
  const client = new Client({ name: 'siteline-test', version: '1.0.0' }, { versionNegotiation: { mode: leg === 'modern' ? { pin: MODERN } : 'legacy' } });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  await client.connect(transport);
  return client;
}

/** The modern per-request envelope plus the headers that must agree with it. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      },
    },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (method === 'tools/call' && typeof params.name === 'string') headers['mcp-name'] = params.name;
  return { body, headers };
}

export function legacyRequest(method: string, params: Record<string, unknown> | undefined = undefined, id: number | string = 1) {
  return {
    body: { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) },
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH } as Record<string, string>,
  };
}

export interface RpcReply {
  status: number;
  headers: Headers;
  /** The JSON-RPC message, from a JSON body or the single SSE data frame. */
  message: { jsonrpc?: string; id?: unknown; result?: any; error?: { code: number; message: string; data?: any } } | null;
  raw: string;
}

export async function postRpc(
  baseUrl: string,
  req: { body: unknown; headers: Record<string, string> },
  extraHeaders: Record<string, string> = {},
): Promise<RpcReply> {
  const res = await fetch(`${baseUrl}/api/mcp`, { method: 'POST', headers: { ...req.headers, ...extraHeaders }, body: JSON.stringify(req.body) });
  const raw = await res.text();
  return { status: res.status, headers: res.headers, message: parseRpcBody(raw, res.headers.get('content-type')), raw };
}

export function parseRpcBody(raw: string, contentType: string | null): RpcReply['message'] {
  if (!raw) return null;
  if ((contentType ?? '').includes('text/event-stream')) {
    const frames = raw.split('\n').filter((l) => l.startsWith('data:'));
    if (frames.length !== 1) throw new Error(`expected exactly one SSE data frame, got ${frames.length}: ${raw}`);
    return JSON.parse(frames[0]!.slice(5));
  }
  return JSON.parse(raw);
}

/** A project as an agent sees it through getProjectContext (the pages and the tools must agree), and its lots as "id role", sorted. */
export async function projectContextOverMcp(
  baseUrl: string,
  token: string,
  projectId: string,
): Promise<{ project: any; lots: { parcelExternalId: string; role: string }[] }> {
  const c = await connectClient(baseUrl, 'modern', token);
  try {
    const r = (await c.callTool({ name: 'getProjectContext', arguments: { projectId, documentsLimit: 1, evidenceLimit: 1 } })) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: { type: string; text: string }[];
    };
    assert.notEqual(r.isError, true, r.content.map((x) => x.text).join('\n'));
    return r.structuredContent as never;
  } finally {
    await c.close();
  }
}

export async function projectLotsOverMcp(baseUrl: string, token: string, projectId: string): Promise<string[]> {
  return (await projectContextOverMcp(baseUrl, token, projectId)).lots.map((l) => `${l.parcelExternalId} ${l.role}`).sort();
}
