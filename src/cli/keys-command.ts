// `siteline keys create <name> | list | revoke <id> [--json]`: REST API keys of the logged-in account
// (`siteline login` first), through the server's own /api/v1/keys routes with the stored identity's
// user token. A new key is printed once; the server keeps only its hash.
// Exit 0 ok; 2 bad usage or refused input; 4 not logged in; 1 unexpected.
import { AuthNeededError, getAccessToken } from './auth-commands.ts';

const USAGE = `Usage:
  siteline keys create <name> [--json]   create a REST API key (printed once: store it now)
  siteline keys list [--json]            the account's keys: name, prefix, created, last used, revoked
  siteline keys revoke <id>              revoke a key at once
`;

function fail(message: string, code = 2): number {
  process.stderr.write(`siteline keys: ${message}\n${code === 2 ? `\n${USAGE}` : ''}`);
  return code;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const { server, token } = await getAccessToken();
  const res = await fetch(`${server}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) : 'never');

async function commands(sub: string | undefined, args: string[], json: boolean): Promise<number> {
  if (sub === 'create') {
    if (args.length !== 1 || !args[0]!.trim()) return fail('create takes one name, e.g. siteline keys create production');
    const r = await call('POST', '/api/v1/keys', { name: args[0] });
    if (r.status !== 201) return fail(r.json?.detail ?? `HTTP ${r.status}`, r.status === 401 ? 4 : 2);
    if (json) process.stdout.write(JSON.stringify(r.json, null, 2) + '\n');
    else process.stdout.write(`${r.json.key}\n`), process.stderr.write(`Key "${r.json.name}" (${r.json.id}) created. It is shown this once: store it now.\n`);
    return 0;
  }
  if (sub === 'list') {
    if (args.length) return fail('list takes no arguments');
    const r = await call('GET', '/api/v1/keys');
    if (r.status !== 200) return fail(r.json?.detail ?? `HTTP ${r.status}`, r.status === 401 ? 4 : 1);
    const keys = r.json.keys as KeyInfo[];
    if (json) process.stdout.write(JSON.stringify(keys, null, 2) + '\n');
    else if (keys.length === 0) process.stdout.write('No keys yet. Create one with `siteline keys create <name>`.\n');
    else {
      for (const k of keys) {
        process.stdout.write(`${k.id}  ${`${k.prefix}…`.padEnd(14)} ${k.name.padEnd(20)} created ${when(k.createdAt)}  last used ${when(k.lastUsedAt)}${k.revokedAt ? `  revoked ${when(k.revokedAt)}` : ''}\n`);
      }
    }
    return 0;
  }
  if (sub === 'revoke') {
    if (args.length !== 1) return fail('revoke takes one key id (see siteline keys list)');
    const r = await call('DELETE', `/api/v1/keys/${encodeURIComponent(args[0]!)}`);
    if (r.status === 204) return process.stdout.write(`Revoked ${args[0]}.\n`), 0;
    return fail(r.json?.detail ?? `HTTP ${r.status}`, r.status === 401 ? 4 : 2);
  }
  if (!sub || sub === '--help' || sub === 'help') {
    process.stdout.write(USAGE);
    return sub ? 0 : 2;
  }
  return fail(`unknown subcommand "${sub}"`);
}

export async function run(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const [sub, ...args] = argv.filter((a) => a !== '--json');
  try {
    return await commands(sub, args, json);
  } catch (err) {
    if (err instanceof AuthNeededError) return fail(err.message, 4);
    throw err;
  }
}
