// The CLI as a client of a running siteline service, on the logged-in user's identity. Every
// remote command goes through here: resolve the URL, renew the user JWT with the jwt-bearer
// exchange of the stored identity assertion, then either call an MCP tool on /api/mcp with the
// official SDK client (so the answer is exactly what the tool returns to any agent) or a JSON HTTP
// route with the bearer. Failures come out as typed errors that main.ts maps to exit codes.
import type { Client } from '@modelcontextprotocol/client';
import { loadCredentials, saveCredentials, type StoredCredentials } from './credentials.ts';
import { cliVersion } from './version.ts';

const DEFAULT_URL = 'http://localhost:8080';
const MCP_PROTOCOL = '2026-07-28';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A cached token is reused while it has at least this long to live. */
const TOKEN_MARGIN_MS = 60_000;

/** Not logged in, or the login no longer works: the user must run `siteline login` (exit 4). */
export class AuthNeededError extends Error {}

/** Nothing answered at the URL (exit 5). */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const why = describeNetworkError(cause);
    super(
      `cannot reach the siteline service at ${url}${why ? ` (${why})` : ''}.\n` +
        'Start it with `npm start` in the siteline checkout, or point at another with --url or SITELINE_URL.',
    );
  }
}

/** The service answered with an error (a non-2xx JSON route, or a protocol error). */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(message);
  }
}

function describeNetworkError(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND') return 'host not found';
  return cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : '');
}

/** `--url`, then SITELINE_URL, then the service the stored login belongs to, then http://localhost:8080. */
export function resolveServiceUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, creds = loadCredentials(env)): string {
  const raw = flag || env.SITELINE_URL || creds?.server || DEFAULT_URL;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ServiceError(`"${raw}" is not a URL (expected e.g. ${DEFAULT_URL})`, 0, 'bad_url', null);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ServiceError(`"${raw}" is not an http(s) URL`, 0, 'bad_url', null);
  return raw.replace(/\/+$/, '');
}

/** fetch that turns "nothing listening" into ServiceUnreachableError. */
export async function fetchService(url: string, base: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    throw new ServiceUnreachableError(base, e);
  }
}

/** A JSON answer from the service, read by field names (each checked where it is used). */
// biome-ignore lint/suspicious/noExplicitAny: open-ended JSON
type ServiceJson = Record<string, any>;

export async function postForm(base: string, path: string, params: Record<string, string>): Promise<{ status: number; json: ServiceJson }> {
  const res = await fetchService(`${base}${path}`, base, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  // A body that is not JSON (a proxy's error page) leaves the status, which the caller reports.
  return { status: res.status, json: (await res.json().catch(() => ({}))) as ServiceJson };
}

/** What a tools/call answered: the structured payload, the text, and whether it is a tool error. */
export interface ToolAnswer {
  structured: Record<string, unknown> | undefined;
  text: string;
  isError: boolean;
  meta: Record<string, unknown> | undefined;
}

export class ServiceClient {
  private creds: StoredCredentials;
  private mcp: Client | undefined;
  /** Set when a request through the MCP transport found nothing listening. */
  private networkFailure: unknown;

  private constructor(
    readonly url: string,
    creds: StoredCredentials,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.creds = creds;
  }

  /**
   * A client on the stored identity. Throws AuthNeededError when nobody is logged in, or when the
   * login belongs to another service than the URL in use (tokens are only valid where they were issued).
   */
  static forUser(opts: { url?: string; env?: NodeJS.ProcessEnv } = {}): ServiceClient {
    const env = opts.env ?? process.env;
    const creds = loadCredentials(env);
    const url = resolveServiceUrl(opts.url, env, creds);
    if (!creds) throw new AuthNeededError(`Not logged in. Run \`siteline login --email <you>${url === DEFAULT_URL ? '' : ` --url ${url}`}\` first.`);
    if (creds.server !== url)
      throw new AuthNeededError(`You are logged in to ${creds.server}, not ${url}. Run \`siteline login --url ${url}\` to use that service.`);
    return new ServiceClient(url, creds, env);
  }

  get email(): string | null {
    return this.creds.email;
  }

  /** A valid user JWT: the cached one while it lasts, else renewed by the jwt-bearer exchange. */
  async accessToken(forceRenew = false): Promise<string> {
    const c = this.creds;
    const fresh = c.access_token && c.access_token_expires_at && Date.parse(c.access_token_expires_at) - Date.now() > TOKEN_MARGIN_MS;
    if (fresh && !forceRenew) return c.access_token!;
    const res = await postForm(this.url, '/api/auth/mcp/token', { grant_type: JWT_BEARER_GRANT, assertion: c.identity_assertion });
    if (res.status !== 200) {
      if (res.json.error === 'invalid_grant') throw new AuthNeededError('Your login has expired or was revoked. Run `siteline login` again.');
      throw new ServiceError(
        `token exchange failed: ${res.json.error_description ?? res.json.error ?? `HTTP ${res.status}`}`,
        res.status,
        res.json.error,
        res.json,
      );
    }
    const expiresAt = new Date(Date.now() + (Number(res.json.expires_in) || 3600) * 1000).toISOString();
    this.creds = { ...c, access_token: res.json.access_token, access_token_expires_at: expiresAt };
    saveCredentials(this.creds, this.env);
    return this.creds.access_token!;
  }

  private async connect(): Promise<Client> {
    if (this.mcp) return this.mcp;
    // Loaded on first use: the SDK takes a noticeable share of start-up, and most commands never call a tool.
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'siteline-cli', version: cliVersion() }, { versionNegotiation: { mode: { pin: MCP_PROTOCOL } } });
    const transport = new StreamableHTTPClientTransport(new URL(`${this.url}/api/mcp`), {
      // The SDK asks for the bearer before each request; on a 401 it calls onUnauthorized and retries once.
      authProvider: {
        token: () => this.accessToken(),
        onUnauthorized: async () => void (await this.accessToken(true)),
      },
      fetch: async (input, init) => {
        try {
          return await fetch(input, init);
        } catch (e) {
          this.networkFailure = e;
          throw e;
        }
      },
    });
    try {
      await client.connect(transport);
    } catch (e) {
      throw this.translate(e);
    }
    this.mcp = client;
    return client;
  }

  private translate(e: unknown): unknown {
    if (e instanceof AuthNeededError || e instanceof ServiceUnreachableError || e instanceof ServiceError) return e;
    if (this.networkFailure) return new ServiceUnreachableError(this.url, this.networkFailure);
    const status = (e as { data?: { status?: number } })?.data?.status;
    if (status === 401) return new AuthNeededError('The service refused your login. Run `siteline login` again.');
    return new ServiceError(`the service at ${this.url} failed: ${e instanceof Error ? e.message : String(e)}`, status ?? 0, undefined, null);
  }

  /** tools/call on /api/mcp: the tool's own answer (an isError result is an answer, not an exception). */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const client = await this.connect();
    let res;
    try {
      res = await client.callTool({ name, arguments: args });
    } catch (e) {
      throw this.translate(e);
    }
    // The first text block is what a person reads (the message or the summary); the second is the
    // whole structured answer as JSON for text-only clients (docs/mcp.md), which the CLI has already.
    const text = (res.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === 'text')?.text ?? '';
    return {
      structured: res.structuredContent as Record<string, unknown> | undefined,
      text,
      isError: res.isError === true,
      meta: res._meta as Record<string, unknown> | undefined,
    };
  }

  /**
   * A JSON HTTP route with the user's bearer (e.g. `GET /api/auth/me`). Returns the parsed body of a
   * 2xx; a 401 renews the token once and retries; any other status is a ServiceError carrying the
   * status and the `{error: {code, message}}` (or OAuth `error`) of the body.
   */
  async requestJson<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const send = async (token: string) =>
      fetchService(`${this.url}${path}`, this.url, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    let res = await send(await this.accessToken());
    if (res.status === 401) {
      await res.body?.cancel();
      res = await send(await this.accessToken(true));
      if (res.status === 401) throw new AuthNeededError('The service refused your login. Run `siteline login` again.');
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (res.ok) return parsed as T;
    const e = (parsed ?? {}) as { error?: string | { code?: string; message?: string }; error_description?: string };
    const code = typeof e.error === 'string' ? e.error : e.error?.code;
    const message = typeof e.error === 'object' ? e.error?.message : e.error_description;
    throw new ServiceError(`${method} ${path}: ${message ?? code ?? `HTTP ${res.status}`}`, res.status, code, parsed);
  }

  async close(): Promise<void> {
    await this.mcp?.close().catch(() => undefined); // closing a session the service already dropped: nothing left to do
    this.mcp = undefined;
  }
}
