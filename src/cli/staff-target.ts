// Where a staff command acts: through the running service's staff API (as the logged-in staff
// account) when --url names one, or when the embedded database is held by a running server (PGlite
// serves one process); otherwise on the database directly (recorded as cli:<os user>@<host>).
// Either way the action goes through src/staff/ and is recorded in staff_actions.
import os from 'node:os';
import path from 'node:path';
import type { CommandInput } from './command.ts';
import type { Io } from './output.ts';
import { AuthNeededError, ServiceClient } from './service-client.ts';
import type { AppContext } from '../context.ts';
import type { StaffActor } from '../staff/staff-actions.ts';

export type StaffTarget = { kind: 'service'; client: ServiceClient; why: string } | { kind: 'database' };

export async function staffTarget(io: Io, flags: CommandInput['flags']): Promise<StaffTarget> {
  const url = typeof flags.url === 'string' ? flags.url : undefined;
  let why = `--url ${url}`;
  if (!url) {
    const env = io.env;
    if (env.DATABASE_URL) return { kind: 'database' };
    const { embeddedDatabaseHolder } = await import('../db/database.ts');
    const dataDir = path.resolve(env.SITELINE_DATA_DIR || './.siteline');
    const pid = embeddedDatabaseHolder(path.join(dataDir, 'pgdata'));
    if (pid === undefined) return { kind: 'database' };
    why = `the embedded database at ${dataDir} is held by a running siteline process (pid ${pid})`;
  }
  try {
    return { kind: 'service', client: ServiceClient.forUser({ url, env: io.env }), why };
  } catch (e) {
    if (e instanceof AuthNeededError) throw new AuthNeededError(`${why}, so this staff command goes through the service as your staff account. ${e.message}`);
    throw e;
  }
}

/** Runs fn on a context over the local database (SITELINE_DATA_DIR or DATABASE_URL), closed after. */
export async function withLocalContext<T>(io: Io, fn: (ctx: AppContext, actor: StaffActor) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { createLogger }, { openContext }] = await Promise.all([import('../config.ts'), import('../logger.ts'), import('../service.ts')]);
  const ctx = await openContext(loadConfig(io.env), { logger: createLogger('warn', io.stderr) });
  try {
    return await fn(ctx, { who: `cli:${os.userInfo().username}@${os.hostname()}`, via: 'cli' });
  } finally {
    await ctx.db.close();
  }
}

/**
 * One staff command, either way: `service` through the staff API, `database` on the local database;
 * `print` writes the answer. A refusal (bad input, unknown account, not staff) is one line on stderr.
 */
export async function runStaff<T>(
  io: Io,
  flags: CommandInput['flags'],
  name: string,
  how: { service: (client: ServiceClient) => Promise<T>; database: (ctx: AppContext, actor: StaffActor) => Promise<T>; print: (result: T) => number },
): Promise<number> {
  const { EXIT } = await import('./exit-codes.ts');
  const { err } = await import('./output.ts');
  const { ServiceError } = await import('./service-client.ts');
  const { SitelineError } = await import('../core/errors.ts');
  const refuse = (message: string, code: number) => (err(io, `${io.errColour.red('error:')} siteline ${name}: ${message}`), code);
  const target = await staffTarget(io, flags);
  if (target.kind === 'service') {
    try {
      return how.print(await how.service(target.client));
    } catch (e) {
      if (e instanceof ServiceError && e.status === 403) return refuse(`refused by the service: ${messageOf(e)}`, EXIT.failure);
      if (e instanceof ServiceError && e.status >= 400 && e.status < 500) return refuse(messageOf(e), EXIT.usage);
      throw e;
    } finally {
      await target.client.close();
    }
  }
  try {
    return await withLocalContext(io, async (ctx, actor) => how.print(await how.database(ctx, actor)));
  } catch (e) {
    if (e instanceof SitelineError && (e.code === 'bad_input' || e.code === 'not_found')) return refuse(e.message, EXIT.usage);
    throw e;
  }
}

function messageOf(e: { body: unknown; message: string }): string {
  const body = e.body as { error?: { message?: string } } | null;
  return body && typeof body === 'object' && body.error?.message ? body.error.message : e.message;
}
