// The machine's operator (issue 49, item 5): whoever can read the running server's data directory may
// act as staff on it, through the service, without being an account. It answers the chicken-and-egg
// of a fresh install: a running PGlite server holds the database, so the CLI must go through the
// service, where only staff may act, and there is no staff yet. At each start the server writes
// `<data directory>/operator.json` (mode 0600, in a 0700 directory): a fresh random secret, and the
// loopback address it listens on. `siteline staff add <email>` on the same machine reads it and calls
// the staff API with it (src/cli/operator-client.ts); the staff log records the action as
// `operator:<os user>@<host>` through the door `operator`. Defence: the secret is as private as the
// database files beside it (the same OS user can read those anyway), it is new at every start and
// gone at shutdown, only its SHA-256 is kept (in this process's memory, never in the database), and it
// is accepted only from a loopback peer that came through no proxy (src/rest/staff-api.ts). No HTTP here.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { newSecret } from '../auth/secrets.ts';

const OPERATOR_FILE = 'operator.json';
export const OPERATOR_TOKEN_PREFIX = 'slop';

/** What the file holds. */
export interface OperatorFile {
  /** Where the CLI reaches this process on this machine (loopback). */
  url: string;
  /** The service's public base URL (the Host the CLI names, so the Host check passes). */
  baseUrl: string;
  token: string;
  pid: number;
  createdAt: string;
}

const hashes = new WeakMap<object, Buffer>();
const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest();

/** Where a data directory keeps the operator credential. */
export const operatorFilePath = (dataDir: string): string => path.join(path.resolve(dataDir), OPERATOR_FILE);

/**
 * Writes a new operator credential for this process (called once it listens on `port`), and removes it
 * at shutdown (ctx.lifecycle's drain hooks) when the file is still this process's.
 */
export function writeOperatorCredential(ctx: AppContext, port: number): void {
  const token = newSecret(OPERATOR_TOKEN_PREFIX);
  const bind = ctx.config.host;
  const host = bind === '0.0.0.0' || bind === '::' || bind === '' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;
  const body: OperatorFile = { url: `http://${host}:${port}`, baseUrl: ctx.config.baseUrl, token, pid: process.pid, createdAt: ctx.clock.now().toISOString() };
  const file = operatorFilePath(ctx.config.dataDir);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.rmSync(tmp, { force: true });
    fs.writeFileSync(tmp, JSON.stringify(body, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (err) {
    // The service works without it; only `siteline staff` on this machine cannot act as the operator.
    ctx.logger.warn({ err: err instanceof Error ? err.message : String(err), file }, 'the operator credential could not be written');
    return;
  }
  hashes.set(ctx.db, sha256(token));
  ctx.lifecycle?.onDrain.push(() => {
    try {
      const now = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<OperatorFile>;
      if (now.token === token) fs.rmSync(file, { force: true });
    } catch {
      // already gone, or replaced by another process: nothing of ours to remove
    }
  });
  ctx.logger.info({ file }, 'operator credential written (siteline staff on this machine)');
}

/** True when `token` is this process's operator credential (constant-time). */
export function isOperatorToken(ctx: AppContext, token: string): boolean {
  const want = hashes.get(ctx.db);
  if (!want || !token.startsWith(`${OPERATOR_TOKEN_PREFIX}_`)) return false;
  return crypto.timingSafeEqual(sha256(token), want);
}

/** The file of a data directory, when it is there and readable by this user (the CLI's side). */
export function readOperatorFile(dataDir: string): OperatorFile | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(operatorFilePath(dataDir), 'utf8')) as Partial<OperatorFile>;
    if (typeof parsed.url === 'string' && typeof parsed.baseUrl === 'string' && typeof parsed.token === 'string' && typeof parsed.pid === 'number')
      return parsed as OperatorFile;
  } catch {
    // no file (no server wrote one here), or not ours to read
  }
  return undefined;
}
