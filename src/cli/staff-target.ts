// Where a staff command acts, never guessed (issue 47, item 5), in this order:
//   --operator             the running server of this machine's data directory, as its operator
//   --url URL              that service, as the logged-in staff account
//   DATABASE_URL           that database, directly (recorded as cli:<os user>@<host>)
//   a data directory held  by a running server (PGlite serves one process): through that server, as the
//                          logged-in staff account when the login belongs to it, else as the machine's
//                          operator (the credential the server wrote there: src/staff/operator-credential.ts)
//   a data directory       that holds a database, no server: that database, directly
//   SITELINE_URL or login  that service, as the logged-in staff account
// and with none of these the command refuses with one line naming where it looked; it never creates a
// database. Either way the action goes through src/staff/ and is recorded in staff_actions.
import os from 'node:os';
import path from 'node:path';
import type { CommandInput, Flag } from './command.ts';
import type { Io } from './output.ts';
import { AuthNeededError, ServiceClient } from './service-client.ts';
import type { AppContext } from '../context.ts';
import type { StaffActor } from '../staff/staff-actions.ts';
import { credentialsFile, loadCredentials } from './credentials.ts';
import { embeddedDataDir, embeddedDatabaseExists } from './local-database.ts';

/** What a staff command calls on a service: the logged-in account's client or the operator's. */
export interface StaffClient {
  requestJson<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

export type StaffTarget = { kind: 'service'; client: StaffClient; why: string } | { kind: 'database' } | { kind: 'none'; message: string };

export const OPERATOR_FLAG: Flag = {
  name: 'operator',
  description:
    "Act as this machine's operator: through the server running on this data directory (SITELINE_DATA_DIR), with the credential it wrote there; no login needed",
};

/** Where a staff command acts, for its help. */
export const STAFF_WHERE =
  "Where it acts: with --url, through that service as your staff account (`siteline login` first). On the machine the service runs on (its embedded data directory held), through that server: as your login when it belongs to that server, else as the machine's operator (the credential the server writes into its data directory; --operator forces it), which needs no account and is how the first staff member is made. With DATABASE_URL, or a data directory no server holds, on that database directly. Else SITELINE_URL or your login's service. With none of these it refuses and creates nothing.";

async function staffTarget(io: Io, flags: CommandInput['flags']): Promise<StaffTarget> {
  const env = io.env;
  const url = typeof flags.url === 'string' ? flags.url : undefined;
  const dataDir = embeddedDataDir(env);
  const { embeddedDatabaseHolder } = await import('../db/database.ts');
  const { readOperatorFile, operatorFilePath } = await import('../staff/operator-credential.ts');
  const { OperatorClient } = await import('./operator-client.ts');
  const operator = () => {
    const file = readOperatorFile(dataDir);
    return file && embeddedOrAlive(file.pid) ? file : undefined;
  };
  if (flags.operator) {
    const file = operator();
    if (!file)
      return {
        kind: 'none',
        message: `--operator: no running siteline server wrote an operator credential this user can read at ${operatorFilePath(dataDir)} (start the service with this SITELINE_DATA_DIR, as this user)`,
      };
    return { kind: 'service', client: new OperatorClient(file), why: `as the operator of ${file.url}` };
  }
  const login = (why: string, at?: string): StaffTarget => {
    try {
      return { kind: 'service', client: ServiceClient.forUser({ url: at, env }), why };
    } catch (e) {
      if (e instanceof AuthNeededError) throw new AuthNeededError(`${why}, so this staff command goes through the service as your staff account. ${e.message}`);
      throw e;
    }
  };
  if (url) return login(`--url ${url}`, url);
  if (env.DATABASE_URL) return { kind: 'database' };
  const pid = embeddedDatabaseHolder(path.join(dataDir, 'pgdata'));
  if (pid !== undefined) {
    const why = `the embedded database at ${dataDir} is held by a running siteline process (pid ${pid})`;
    const file = operator();
    const creds = loadCredentials(env);
    // The login, when it belongs to this very server; else the machine's operator.
    if (creds && (!file || creds.server === file.url || creds.server === file.baseUrl.replace(/\/+$/, ''))) return login(why, file ? creds.server : undefined);
    if (file) return { kind: 'service', client: new OperatorClient(file), why: `${why}; acting as its operator` };
    return login(why);
  }
  if (embeddedDatabaseExists(dataDir)) return { kind: 'database' };
  if (env.SITELINE_URL || loadCredentials(env)) return login(env.SITELINE_URL ? `SITELINE_URL ${env.SITELINE_URL}` : 'the service you logged in to');
  return {
    kind: 'none',
    message: `nothing to act on: no --url, no SITELINE_URL, no login (${credentialsFile(env)}), no DATABASE_URL, and ${dataDir} holds no siteline database (SITELINE_DATA_DIR). Run it where the service keeps its data, or name the service with --url`,
  };
}

/** The process that wrote an operator file still runs (a file left by a killed server is stale). */
function embeddedOrAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs fn on a context over the local database (SITELINE_DATA_DIR or DATABASE_URL), closed after. */
async function withLocalContext<T>(io: Io, fn: (ctx: AppContext, actor: StaffActor) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { createLogger }, { openContext }] = await Promise.all([import('../config.ts'), import('../logger.ts'), import('../context.ts')]);
  const ctx = await openContext(loadConfig(io.env), { logger: createLogger('warn', io.stderr) });
  try {
    return await fn(ctx, { who: `cli:${os.userInfo().username}@${os.hostname()}`, via: 'cli' });
  } finally {
    await ctx.db.close();
  }
}

/**
 * One staff command, either way: `service` through the staff API, `database` on the local database;
 * `print` writes the answer. A refusal (bad input, unknown account, not staff, nothing to act on) is
 * one line on stderr.
 */
export async function runStaff<T>(
  io: Io,
  flags: CommandInput['flags'],
  name: string,
  how: { service: (client: StaffClient) => Promise<T>; database: (ctx: AppContext, actor: StaffActor) => Promise<T>; print: (result: T) => number },
): Promise<number> {
  const { EXIT } = await import('./exit-codes.ts');
  const { err } = await import('./output.ts');
  const { ServiceError } = await import('./service-client.ts');
  const { SitelineError } = await import('../core/errors.ts');
  const refuse = (message: string, code: number) => (err(io, `${io.errColour.red('error:')} siteline ${name}: ${message}`), code);
  const target = await staffTarget(io, flags);
  if (target.kind === 'none') return refuse(target.message, EXIT.usage);
  if (target.kind === 'service') {
    try {
      return how.print(await how.service(target.client));
    } catch (e) {
      if (e instanceof ServiceError && (e.status === 403 || e.status === 401)) return refuse(`refused by the service: ${messageOf(e)}`, EXIT.failure);
      if (e instanceof ServiceError && e.status >= 400 && e.status < 500) return refuse(messageOf(e), EXIT.usage);
      throw e;
    } finally {
      await target.client.close();
    }
  }
  try {
    return await withLocalContext(io, async (ctx, actor) => how.print(await how.database(ctx, actor)));
  } catch (e) {
    if (e instanceof SitelineError && (e.code === 'bad_input' || e.code === 'not_found' || e.code === 'conflict')) return refuse(e.message, EXIT.usage);
    throw e;
  }
}

function messageOf(e: { body: unknown; message: string }): string {
  const body = e.body as { error?: { message?: string } } | null;
  return body && typeof body === 'object' && body.error?.message ? body.error.message : e.message;
}
