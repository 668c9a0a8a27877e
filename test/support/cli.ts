// Drives the real `siteline` binary (node bin/siteline.mjs) as a person would, and logs it in
// through the service's real endpoints and claim page.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Command } from '../../src/cli/command.ts';
import { ROOT } from './harness.ts';
import { confirmClaimOnPage, signUpOrIn } from './auth-flow.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `siteline ...args` (in `cwd`, default the repository); stdin is closed and stdout/stderr are pipes (not terminals). */
export function runSiteline(args: string[], env: NodeJS.ProcessEnv, onStderr?: (all: string) => void, cwd = ROOT): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], {
      cwd,
      // The runner's own colour settings are dropped, not blanked: Node 22 warns on stderr when both are set.
      env: { ...withoutColourSettings(process.env), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => {
      stderr += String(d);
      onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** `siteline login --email` against the server, with the code confirmed on the real claim page by a signed-in user. */
export async function loginThroughCli(serverUrl: string, email: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const jar = await signUpOrIn(serverUrl, email);
  let confirming: Promise<{ status: number }> | undefined;
  const login = await runSiteline(['login', '--email', email], env, (err) => {
    const m = /open:\s+(\S+)[\s\S]*type this code there:\s+(\d{6})/.exec(err);
    if (m && !confirming) confirming = confirmClaimOnPage(serverUrl, m[1]!, m[2]!, jar);
  });
  assert.ok(confirming, `login printed no code: ${login.stderr}`);
  assert.equal((await confirming).status, 200);
  return login;
}

/** A port nothing listens on: any attempt to reach the service fails loudly (exit 5). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Every command path in the table: ['check'], ['data'], ['data', 'import'], ... */
export function commandPaths(list: Command[], prefix: string[] = []): { path: string[]; cmd: Command }[] {
  return list.flatMap((c) => [{ path: [...prefix, c.name], cmd: c }, ...commandPaths(c.subcommands ?? [], [...prefix, c.name])]);
}

export interface CliSandbox {
  dir: string;
  env: Record<string, string>;
  credsFile: string;
  /** What a command could have touched: the stored login and the local database directory. */
  untouched(): void;
  remove(): void;
}

/** A config dir holding a fake stored login, a data dir that must never be created, and a service URL nobody answers. */
export async function cliSandbox(name: string): Promise<CliSandbox> {
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', `${name}-`));
  const url = `http://127.0.0.1:${await closedPort()}`;
  const env = {
    SITELINE_CONFIG_DIR: path.join(dir, 'config'),
    SITELINE_URL: url,
    SITELINE_DATA_DIR: path.join(dir, 'data'),
    DATABASE_URL: '',
    SITELINE_AUTO_IMPORT: '0',
  };
  const credsFile = path.join(dir, 'config', 'credentials.json');
  fs.mkdirSync(path.join(dir, 'config'), { recursive: true });
  fs.writeFileSync(credsFile, JSON.stringify({ server: url, email: 'keep@example.com', identity_assertion: 'stored-assertion' }), { mode: 0o600 });
  return {
    dir,
    env,
    credsFile,
    untouched() {
      assert.ok(fs.existsSync(credsFile), 'the stored login is still there');
      assert.equal(JSON.parse(fs.readFileSync(credsFile, 'utf8')).identity_assertion, 'stored-assertion');
      assert.ok(!fs.existsSync(path.join(dir, 'data')), 'no database was opened');
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

function withoutColourSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NO_COLOR: _n, FORCE_COLOR: _f, ...rest } = env;
  return rest;
}

/**
 * The environment of a town's own working directory for the data commands: an embedded database in
 * <tmp>/data, the town's files under <tmp>, its manifest written to places, nothing imported at start.
 */
export function townCliEnv(tmp: string, places: string): Record<string, string | undefined> {
  return {
    ...process.env,
    DATABASE_URL: '',
    SITELINE_DATA_DIR: path.join(tmp, 'data'),
    SITELINE_PLACES_DIR: places,
    SITELINE_SOURCE_DIR: tmp,
    SITELINE_AUTO_IMPORT: '0',
    LOG_LEVEL: 'warn',
    NO_COLOR: '1',
  };
}

/** `siteline <args>` through the real binary, synchronously: exit code, stdout and stderr. */
export function sitelineRunner(env: Record<string, string | undefined>) {
  return (...args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: 180_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
}
