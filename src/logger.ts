// One JSON line per event. Secrets are redacted by path so a token never reaches a log.
import { pino, type Logger } from 'pino';

export type { Logger };

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.access_token',
  '*.refresh_token',
  '*.claim_token',
  '*.identity_assertion',
  '*.assertion',
  '*.token',
  '*.code',
  '*.user_code',
];

/** Removes credentials that error messages can carry: passwords in URLs, bearer tokens. */
export function scrubSecrets(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, '$1[redacted]@').replace(/(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1[redacted]');
}

/**
 * Fields database drivers put on errors that carry the statement's data: node-postgres's `detail`
 * ("Key (email)=(...)"), PGlite's `query`/`params`, `where`, `internalQuery`. Dropped from any logged error,
 * even one that did not pass through the database layer's DbQueryError.
 */
const DRIVER_DATA_FIELDS = ['params', 'parameters', 'values', 'query', 'queryOptions', 'detail', 'where', 'internalQuery', 'hint', 'original', 'payload'];

function cleanErr(e: Record<string, unknown>, depth: number): Record<string, unknown> {
  for (const k of DRIVER_DATA_FIELDS) delete e[k];
  for (const k of ['message', 'stack']) if (typeof e[k] === 'string') e[k] = scrubSecrets(e[k] as string);
  if (e.cause && typeof e.cause === 'object' && depth < 3) e.cause = cleanErr({ ...(e.cause as Record<string, unknown>) }, depth + 1);
  return e;
}

function errSerializer(err: unknown): unknown {
  const e = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (!e || typeof e !== 'object') return e;
  return cleanErr(e, 0);
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'siteline' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: errSerializer },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
