// Unguessable secrets (256 bits) and the SHA-256 form they are stored in: a secret is shown once.
import crypto from 'node:crypto';

/** A new secret `<prefix>_<43 base64url chars>`. */
export function newSecret(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
}

/** What the database keeps instead of the secret. */
export function secretHash(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two strings (compares their hashes, so lengths may differ). */
export function sameSecret(a: string, b: string): boolean {
  return crypto.timingSafeEqual(Buffer.from(secretHash(a), 'hex'), Buffer.from(secretHash(b), 'hex'));
}

/** A six-digit code, uniformly drawn. */
export function sixDigitCode(): string {
  return crypto.randomInt(0, 1_000_000).toString().padStart(6, '0');
}
