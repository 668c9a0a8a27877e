// One typed error for the domain; each surface maps codes to its own wire format once.
export type ErrorCode =
  | 'bad_input'
  | 'not_found'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unavailable'
  | 'internal';

export class SitelineError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SitelineError';
  }
}

export const badInput = (message: string, details?: Record<string, unknown>) => new SitelineError('bad_input', message, details);
