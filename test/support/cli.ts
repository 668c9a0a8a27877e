// Drives the real `siteline` binary (node bin/siteline.mjs) as a person would, and logs it in
// through the service's real endpoints and claim page.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './harness.ts';
import { confirmClaimOnPage, signUpOrIn } from './auth-flow.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `siteline ...args`; stdin is closed and stdout/stderr are pipes (not terminals). */
export function runSiteline(args: string[], env: NodeJS.ProcessEnv, onStderr?: (all: string) => void): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env },
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
