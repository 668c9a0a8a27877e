// `siteline login | whoami | logout`: the agent flow for a person at a terminal. login registers a
// service_auth identity, shows the verification URL and code (on stderr, with progress while it
// polls, honouring interval and slow_down) and stores the identity assertion owner-only, with the
// service URL it belongs to. Other commands renew their access token from it (service-client.ts).
import os from 'node:os';
import readline from 'node:readline/promises';
import type { Command } from './command.ts';
import { URL_FLAG } from './command.ts';
import { credentialsFile, deleteCredentials, loadCredentials, saveCredentials } from './credentials.ts';
import { EXIT } from './exit-codes.ts';
import { err, out, progress, type Io } from './output.ts';
import { fetchService, postForm, resolveServiceUrl, ServiceClient } from './service-client.ts';

const CLAIM_GRANT = 'urn:siteline:agent-auth:grant-type:claim';

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

async function askEmail(io: Io): Promise<string | undefined> {
  if (!process.stdin.isTTY) return undefined;
  const rl = readline.createInterface({ input: process.stdin, output: io.stderr });
  try {
    return (await rl.question('E-mail of your siteline account: ')).trim() || undefined;
  } finally {
    rl.close();
  }
}

/** "CLI on <host name>", as the account page shows this login. */
function cliLabel(hostname = os.hostname()): string {
  const host =
    hostname
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
      .trim()
      .slice(0, 64) || 'an unnamed machine';
  return `CLI on ${host}`;
}

export const loginCommand: Command = {
  name: 'login',
  summary: 'Link this machine to your siteline account',
  usage: 'login [--email EMAIL] [--url URL]',
  description:
    'Registers this machine with the service, prints a link and a code: open the link, sign in as EMAIL\n' +
    'and type the code. The login (and the service URL) is stored owner-only in\n' +
    '$SITELINE_CONFIG_DIR, else $XDG_CONFIG_HOME/siteline, else ~/.config/siteline.',
  flags: [{ name: 'email', value: 'EMAIL', description: 'Your account e-mail (asked for on a terminal when omitted)' }, URL_FLAG],
  examples: ['siteline login --email you@example.com', 'siteline login --url https://siteline.example.com'],
  async run({ flags, io }) {
    const server = resolveServiceUrl(flags.url as string | undefined, io.env);
    const email = (flags.email as string | undefined) ?? (await askEmail(io));
    if (!email) return (err(io, 'siteline login: pass --email <your account e-mail>.'), EXIT.usage);

    const res = await fetchService(`${server}/api/auth/agent/identity`, server, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // The account page lists this login as "CLI on <host>", so a person can tell their machines apart.
      body: JSON.stringify({ type: 'service_auth', login_hint: email, label: cliLabel() }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the registration answer is JSON read by field names, each checked where it is used
    const reg = { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, any> }; // not JSON: the status is reported
    if (reg.status !== 201) return (err(io, `siteline login: ${reg.json.error_description ?? reg.json.error ?? `HTTP ${reg.status}`}`), EXIT.usage);
    const claim = reg.json.claim as { user_code: string; verification_uri: string; interval: number; expires_in: number };
    const b = io.errColour.bold;
    err(
      io,
      `To link this machine to ${email}, open:\n\n  ${b(claim.verification_uri)}\n\nsign in (or sign up) as ${email}, and type this code there:\n\n  ${b(claim.user_code)}\n`,
    );

    let interval = Math.max(1, Number(claim.interval) || 5);
    const waiting = progress(io, 'Waiting for you to confirm in the browser (Ctrl-C to stop)...', { plainLine: true });
    try {
      for (;;) {
        await sleep(interval);
        const poll = await postForm(server, '/api/auth/mcp/token', { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token });
        if (poll.status === 200) {
          const expiresAt = new Date(Date.now() + (Number(poll.json.expires_in) || 3600) * 1000).toISOString();
          saveCredentials(
            { server, email, identity_assertion: poll.json.identity_assertion, access_token: poll.json.access_token, access_token_expires_at: expiresAt },
            io.env,
          );
          waiting.stop();
          out(io, `Logged in as ${email} on ${server}. Credentials stored in ${credentialsFile(io.env)}.`);
          return EXIT.ok;
        }
        const error = poll.json.error as string | undefined;
        if (error === 'authorization_pending') continue;
        if (error === 'slow_down') {
          interval = Number(poll.json.interval) || interval + 5;
          continue;
        }
        waiting.stop();
        if (error === 'expired_token' || poll.status === 410)
          return (err(io, 'The code expired before it was confirmed. Run `siteline login` again.'), EXIT.authNeeded);
        if (error === 'access_denied') return (err(io, 'The request was refused on the claim page. Nothing was linked.'), EXIT.authNeeded);
        return (err(io, `siteline login failed: ${poll.json.error_description ?? error ?? `HTTP ${poll.status}`}`), EXIT.failure);
      }
    } finally {
      waiting.stop();
    }
  },
};

export const whoamiCommand: Command = {
  name: 'whoami',
  summary: 'Who the stored login is, on which service',
  usage: 'whoami [--url URL] [--json]',
  flags: [URL_FLAG, { name: 'json', description: 'Print the identity as JSON' }],
  async run({ flags, io }) {
    const client = ServiceClient.forUser({ url: flags.url as string | undefined, env: io.env });
    const me = await client.requestJson<{ email?: string; subject: string; scopes: string[] }>('GET', '/api/auth/me');
    if (flags.json) out(io, JSON.stringify({ ...me, server: client.url }, null, 2));
    else out(io, `${me.email ?? me.subject} on ${client.url} (scopes: ${me.scopes.join(' ')})`);
    return EXIT.ok;
  },
};

export const logoutCommand: Command = {
  name: 'logout',
  summary: 'Revoke the stored login on the service and delete it here',
  usage: 'logout',
  async run({ io }) {
    const creds = loadCredentials(io.env);
    if (!creds) return (out(io, 'Not logged in.'), EXIT.ok);
    let revoked = false;
    try {
      const res = await postForm(creds.server, '/api/auth/agent/revoke', { token: creds.identity_assertion, token_type_hint: 'identity_assertion' });
      revoked = res.status === 200;
    } catch {
      revoked = false;
    }
    deleteCredentials(io.env);
    if (!revoked) return (err(io, `Could not reach ${creds.server} to revoke the identity; the local credentials are deleted.`), EXIT.failure);
    out(io, `Logged out${creds.email ? ` ${creds.email}` : ''}: the identity is revoked and the local credentials are deleted.`);
    return EXIT.ok;
  },
};
