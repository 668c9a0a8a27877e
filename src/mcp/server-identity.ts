// The server's name and version, read from package.json once: the runtime (serverInfo) and the
// server card must say the same thing.
import fs from 'node:fs';
import path from 'node:path';

export interface ServerIdentity {
  name: string;
  version: string;
  title: string;
  description: string;
}

let cached: ServerIdentity | undefined;

export function serverIdentity(): ServerIdentity {
  if (!cached) {
    const file = path.resolve(import.meta.dirname, '../../package.json');
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; version: string; description?: string };
    cached = {
      name: pkg.name,
      version: pkg.version,
      title: 'Siteline site intelligence',
      description: 'US and Canadian street address to a sourced site snapshot: lot, zoning and building envelope.',
    };
  }
  return cached;
}

/** The protocol revision the endpoint is built for; the 2025 leg is served alongside it. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
export const LEGACY_PROTOCOL_VERSION = '2025-06-18';
