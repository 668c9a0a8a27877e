// The stored login: the identity assertion `siteline login` earned, the service it belongs to, and a
// cached access token. One file, owner-only, under the user's config directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface StoredCredentials {
  /** The service this identity was registered with (remembered at login, used as the default URL). */
  server: string;
  email: string | null;
  identity_assertion: string;
  access_token?: string;
  access_token_expires_at?: string;
}

function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SITELINE_CONFIG_DIR) return path.resolve(env.SITELINE_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'siteline');
}

export const credentialsFile = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'credentials.json');

export function loadCredentials(env: NodeJS.ProcessEnv = process.env): StoredCredentials | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(credentialsFile(env), 'utf8')) as StoredCredentials;
    return typeof parsed.identity_assertion === 'string' && typeof parsed.server === 'string' ? parsed : undefined;
  } catch {
    return undefined; // no credentials file, or one that does not parse: signed out (`siteline login` writes a fresh one)
  }
}

export function saveCredentials(creds: StoredCredentials, env: NodeJS.ProcessEnv = process.env): void {
  const dir = configDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = credentialsFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

export function deleteCredentials(env: NodeJS.ProcessEnv = process.env): void {
  fs.rmSync(credentialsFile(env), { force: true });
}
