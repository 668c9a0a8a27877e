// The CLI's version: package.json's, read once.
import fs from 'node:fs';
import path from 'node:path';

export function cliVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
