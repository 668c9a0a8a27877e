// `siteline keys create <name> | list | revoke <id> [--json]`: REST API keys of the logged-in account
// (`siteline login` first), through the service's own /api/v1/keys routes with the user's token
// (ServiceClient). A new key is printed once; the service keeps only its hash.
// Exit 0 ok; 2 bad usage or refused input (e.g. an unknown key id); 4 not logged in; 5 unreachable; 1 unexpected.
import { JSON_FLAG, URL_FLAG, type Command, type CommandInput } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { err, out, type Io } from './output.ts';
import { ServiceClient, ServiceError } from './service-client.ts';

interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) : 'never');

/** The problem-details `detail` of a refused request, else the error's message. */
function refusal(e: ServiceError): string {
  const body = e.body as { detail?: string } | null;
  return body && typeof body === 'object' && body.detail ? body.detail : e.message;
}

/** Runs fn with a client; a 4xx refusal (other than 401, handled by the client) is exit 2 with the reason. */
async function withClient(io: Io, flags: CommandInput['flags'], fn: (c: ServiceClient) => Promise<number>): Promise<number> {
  const client = ServiceClient.forUser({ url: flags.url as string | undefined, env: io.env });
  try {
    return await fn(client);
  } catch (e) {
    if (e instanceof ServiceError && e.status >= 400 && e.status < 500) {
      err(io, `${io.errColour.red('error:')} siteline keys: ${refusal(e)}`);
      return EXIT.usage;
    }
    throw e;
  } finally {
    await client.close();
  }
}

const runCreate = ({ args: [name], flags, io }: CommandInput) =>
  withClient(io, flags, async (client) => {
    if (!name!.trim()) {
      err(io, `${io.errColour.red('error:')} siteline keys create: the name is empty`);
      return EXIT.usage;
    }
    const created = await client.requestJson<{ id: string; name: string; key: string }>('POST', '/api/v1/keys', { name });
    if (flags.json) out(io, JSON.stringify(created, null, 2));
    else {
      out(io, created.key);
      err(io, `Key "${created.name}" (${created.id}) created. It is shown this once: store it now.`);
    }
    return EXIT.ok;
  });

const runList = ({ flags, io }: CommandInput) =>
  withClient(io, flags, async (client) => {
    const { keys } = await client.requestJson<{ keys: KeyInfo[] }>('GET', '/api/v1/keys');
    if (flags.json) out(io, JSON.stringify(keys, null, 2));
    else if (keys.length === 0) out(io, 'No keys yet. Create one with `siteline keys create <name>`.');
    else {
      for (const k of keys) {
        out(
          io,
          `${k.id}  ${`${k.prefix}…`.padEnd(14)} ${k.name.padEnd(20)} created ${when(k.createdAt)}  last used ${when(k.lastUsedAt)}${k.revokedAt ? `  revoked ${when(k.revokedAt)}` : ''}`,
        );
      }
    }
    return EXIT.ok;
  });

const runRevoke = ({ args: [id], flags, io }: CommandInput) =>
  withClient(io, flags, async (client) => {
    await client.requestJson('DELETE', `/api/v1/keys/${encodeURIComponent(id!)}`);
    if (flags.json) out(io, JSON.stringify({ id, revoked: true }));
    else out(io, `Revoked ${id}.`);
    return EXIT.ok;
  });

export const keysCommand: Command = {
  name: 'keys',
  summary: 'REST API keys of your account: create, list, revoke',
  usage: 'keys <command> [flags]',
  description: "Uses your login (`siteline login` first) and the service's /api/v1/keys routes.",
  subcommands: [
    {
      name: 'create',
      summary: 'Create a REST API key (printed once on stdout: store it now)',
      usage: 'keys create <name> [--json]',
      flags: [JSON_FLAG, URL_FLAG],
      args: { min: 1, max: 1, name: 'the key name, e.g. siteline keys create production' },
      examples: ['siteline keys create production > key.txt'],
      run: runCreate,
    },
    {
      name: 'list',
      summary: 'Your keys: id, prefix, name, created, last used, revoked',
      usage: 'keys list [--json]',
      flags: [JSON_FLAG, URL_FLAG],
      run: runList,
    },
    {
      name: 'revoke',
      summary: 'Revoke a key at once',
      usage: 'keys revoke <id> [--json]',
      flags: [JSON_FLAG, URL_FLAG],
      args: { min: 1, max: 1, name: 'the key id (see siteline keys list)' },
      run: runRevoke,
    },
  ],
};
