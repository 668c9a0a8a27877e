// One JSON line per event. Secrets are redacted by path so a token never reaches a log.
import { pino, type Logger } from 'pino';

export type { Logger };

export const REDACTED_PATHS = [
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
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, '$1[redacted]@')
    .replace(/(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1[redacted]');
}

function errSerializer(err: unknown): unknown {
  const e = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (!e || typeof e !== 'object') return e;
  for (const k of ['message', 'stack']) if (typeof e[k] === 'string') e[k] = scrubSecrets(e[k] as string);
  return e;
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
