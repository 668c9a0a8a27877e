// `siteline login | whoami | logout`: the agent flow for a person at a terminal. login registers a
// service_auth identity, shows the verification URL and code, polls (honouring interval and slow_down)
// and stores the identity assertion owner-only under the user's config directory. Commands renew
// their access token with the jwt-bearer exchange; invalid_grant means: log in again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline/promises';

const CLAIM_GRANT = 'urn:siteline:agent-auth:grant-type:claim';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_AUTH = 4;

export interface StoredCredentials {
  server: string;
  email: string | null;
  identity_assertion: string;
  access_token?: string;
  access_token_expires_at?: string;
}

export class AuthNeededError extends Error {}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SITELINE_CONFIG_DIR) return path.resolve(env.SITELINE_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'siteline');
}

const credentialsFile = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'credentials.json');

export function loadCredentials(env: NodeJS.ProcessEnv = process.env): StoredCredentials | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(credentialsFile(env), 'utf8')) as StoredCredentials;
    return typeof parsed.identity_assertion === 'string' && typeof parsed.server === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function saveCredentials(creds: StoredCredentials, env: NodeJS.ProcessEnv = process.env): void {
  const dir = configDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = credentialsFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

function parseArgs(argv: string[]): { url?: string; email?: string; rest: string[]; bad?: string } {
  const out: { url?: string; email?: string; rest: string[]; bad?: string } = { rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (flag === '--url' || flag === '--email') {
      const v = inline ?? argv[++i];
      if (!v) out.bad = `${flag} needs a value`;
      else if (flag === '--url') out.url = v;
      else out.email = v;
    } else out.rest.push(a);
  }
  return out;
}

export function serverUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return (flag || env.SITELINE_URL || 'http://localhost:8080').replace(/\/+$/, '');
}

async function form(url: string, params: Record<string, string>): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() });
  return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, any> };
}

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const say = (s: string) => process.stdout.write(s + '\n');
const complain = (s: string) => process.stderr.write(s + '\n');

async function askEmail(): Promise<string | undefined> {
  if (!process.stdin.isTTY) return undefined;
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question('E-mail of your siteline account: ')).trim() || undefined;
  } finally {
    rl.close();
  }
}

export async function login(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.bad) return complain(`siteline login: ${args.bad}`), EXIT_USAGE;
  const server = serverUrl(args.url);
  const email = args.email ?? (await askEmail());
  if (!email) return complain('siteline login: pass --email <your account e-mail>.'), EXIT_USAGE;

  let reg;
  try {
    const res = await fetch(`${server}/api/auth/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'service_auth', login_hint: email }),
    });
    reg = { status: res.status, json: (await res.json()) as Record<string, any> };
  } catch (err) {
    return complain(`siteline login: cannot reach ${server} (${(err as Error).message}).`), EXIT_FAILURE;
  }
  if (reg.status !== 201) return complain(`siteline login: ${reg.json.error_description ?? reg.json.error ?? `HTTP ${reg.status}`}`), EXIT_USAGE;
  const claim = reg.json.claim as { user_code: string; verification_uri: string; interval: number; expires_in: number };
  say(`To link this machine to ${email}, open:\n\n  ${claim.verification_uri}\n\nsign in (or sign up) as ${email}, and type this code there:\n\n  ${claim.user_code}\n`);
  say('Waiting for you to confirm...');

  let interval = Math.max(1, Number(claim.interval) || 5);
  for (;;) {
    await sleep(interval);
    const poll = await form(`${server}/api/auth/mcp/token`, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token });
    if (poll.status === 200) {
      const expiresAt = new Date(Date.now() + (Number(poll.json.expires_in) || 3600) * 1000).toISOString();
      saveCredentials({ server, email, identity_assertion: poll.json.identity_assertion, access_token: poll.json.access_token, access_token_expires_at: expiresAt });
      say(`Logged in as ${email}. Credentials stored in ${credentialsFile()}.`);
      return EXIT_OK;
    }
    const error = poll.json.error as string | undefined;
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      interval = Number(poll.json.interval) || interval + 5;
      continue;
    }
    if (error === 'expired_token') return complain('The code expired before it was confirmed. Run `siteline login` again.'), EXIT_AUTH;
    if (error === 'access_denied') return complain('The request was refused on the claim page. Nothing was linked.'), EXIT_AUTH;
    if (poll.status === 410) return complain('The login request expired. Run `siteline login` again.'), EXIT_AUTH;
    return complain(`siteline login failed: ${poll.json.error_description ?? error ?? `HTTP ${poll.status}`}`), EXIT_FAILURE;
  }
}

/** A valid access token for the stored identity, renewed by the jwt-bearer exchange when needed. */
export async function getAccessToken(opts: { url?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ server: string; token: string; email: string | null }> {
  const env = opts.env ?? process.env;
  const creds = loadCredentials(env);
  if (!creds) throw new AuthNeededError('Not logged in. Run `siteline login --email <you>`.');
  const server = opts.url ? serverUrl(opts.url, env) : creds.server;
  if (server !== creds.server) throw new AuthNeededError(`Logged in to ${creds.server}, not ${server}. Run \`siteline login --url ${server}\`.`);
  const fresh = creds.access_token && creds.access_token_expires_at && Date.parse(creds.access_token_expires_at) - Date.now() > 60_000;
  if (fresh) return { server, token: creds.access_token!, email: creds.email };
  const res = await form(`${server}/api/auth/mcp/token`, { grant_type: JWT_BEARER_GRANT, assertion: creds.identity_assertion });
  if (res.status !== 200) {
    if (res.json.error === 'invalid_grant') throw new AuthNeededError('Your login has expired or was revoked. Run `siteline login` again.');
    throw new Error(`token exchange failed: ${res.json.error_description ?? res.json.error ?? `HTTP ${res.status}`}`);
  }
  const expiresAt = new Date(Date.now() + (Number(res.json.expires_in) || 3600) * 1000).toISOString();
  saveCredentials({ ...creds, access_token: res.json.access_token, access_token_expires_at: expiresAt }, env);
  return { server, token: res.json.access_token, email: creds.email };
}

export async function whoami(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.bad) return complain(`siteline whoami: ${args.bad}`), EXIT_USAGE;
  try {
    let { server, token } = await getAccessToken({ url: args.url });
    let res = await fetch(`${server}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 401) {
      // The cached token was refused (e.g. keys rotated): renew once.
      const creds = loadCredentials();
      if (creds) saveCredentials({ server: creds.server, email: creds.email, identity_assertion: creds.identity_assertion });
      ({ server, token } = await getAccessToken({ url: args.url }));
      res = await fetch(`${server}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    }
    const me = (await res.json()) as Record<string, any>;
    if (res.status !== 200) return complain(`siteline whoami: ${me.error_description ?? `HTTP ${res.status}`}`), EXIT_AUTH;
    say(`${me.email ?? me.subject} on ${server} (scopes: ${(me.scopes as string[]).join(' ')})`);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof AuthNeededError) return complain(err.message), EXIT_AUTH;
    return complain(`siteline whoami: ${(err as Error).message}`), EXIT_FAILURE;
  }
}

export async function logout(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.bad) return complain(`siteline logout: ${args.bad}`), EXIT_USAGE;
  const creds = loadCredentials();
  if (!creds) return say('Not logged in.'), EXIT_OK;
  let revoked = false;
  try {
    const res = await form(`${creds.server}/api/auth/agent/revoke`, { token: creds.identity_assertion, token_type_hint: 'identity_assertion' });
    revoked = res.status === 200;
  } catch {
    revoked = false;
  }
  fs.rmSync(credentialsFile(), { force: true });
  if (!revoked) {
    complain(`Could not reach ${creds.server} to revoke the identity; the local credentials are deleted.`);
    return EXIT_FAILURE;
  }
  say(`Logged out${creds.email ? ` ${creds.email}` : ''}: the identity is revoked and the local credentials are deleted.`);
  return EXIT_OK;
}
