// Token signing keys: created on first start, persisted in the database (every instance agrees),
// published at the JWKS endpoint by `kid`. Rotation: add a new key and set retired_at on the old one;
// retired keys stay published so tokens they signed verify until they expire.
import type { webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair, calculateJwkThumbprint, importJWK, type JWK } from 'jose';

type CryptoKey = webcrypto.CryptoKey;
import type { AppContext } from '../context.ts';

export const SIGNING_ALG = 'ES256';

interface KeyRow {
  kid: string;
  alg: string;
  public_jwk: JWK;
  private_jwk: JWK;
  retired_at: Date | string | null;
}

export interface SigningKeySet {
  /** The key new tokens are signed with. */
  active: { kid: string; alg: string; privateJwk: JWK };
  /** Every published public key (active and retired), each with kid, alg and use. */
  publicJwks: JWK[];
}

/**
 * Creates the first signing key when the database holds none that is active. Instances starting
 * together on one PostgreSQL database take an advisory lock and look again under it, so exactly one
 * of them creates the key.
 */
export async function ensureSigningKey(ctx: AppContext): Promise<void> {
  const rows = await ctx.db.query('SELECT 1 FROM auth_signing_keys WHERE retired_at IS NULL LIMIT 1');
  if (rows.length > 0) return;
  await createSigningKey(ctx, false, true);
}

/** Adds a new active key and retires the previous ones (they stay published). */
export async function rotateSigningKey(ctx: AppContext): Promise<string> {
  return createSigningKey(ctx, true);
}

async function createSigningKey(ctx: AppContext, retireOthers = false, onlyIfNoneActive = false): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  const priv = await exportJWK(privateKey);
  const now = ctx.clock.now().toISOString();
  let created = kid;
  await ctx.db.transaction(async (tx) => {
    if (ctx.db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['siteline-signing-keys']);
    if (onlyIfNoneActive) {
      const active = await tx.query<{ kid: string }>('SELECT kid FROM auth_signing_keys WHERE retired_at IS NULL LIMIT 1');
      if (active.length > 0) {
        created = active[0]!.kid; // another instance created it first
        return;
      }
    }
    if (retireOthers) await tx.query('UPDATE auth_signing_keys SET retired_at = $1 WHERE retired_at IS NULL', [now]);
    await tx.query('INSERT INTO auth_signing_keys (kid, alg, public_jwk, private_jwk, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (kid) DO NOTHING', [
      kid,
      SIGNING_ALG,
      JSON.stringify({ ...pub, kid, alg: SIGNING_ALG, use: 'sig' }),
      JSON.stringify({ ...priv, kid, alg: SIGNING_ALG, use: 'sig' }),
      now,
    ]);
  });
  return created;
}

export async function loadSigningKeys(ctx: AppContext): Promise<SigningKeySet> {
  let rows = await ctx.db.query<KeyRow>('SELECT kid, alg, public_jwk, private_jwk, retired_at FROM auth_signing_keys ORDER BY created_at DESC, kid');
  if (!rows.some((r) => r.retired_at === null)) {
    await ensureSigningKey(ctx);
    rows = await ctx.db.query<KeyRow>('SELECT kid, alg, public_jwk, private_jwk, retired_at FROM auth_signing_keys ORDER BY created_at DESC, kid');
  }
  const active = rows.find((r) => r.retired_at === null)!;
  return {
    active: { kid: active.kid, alg: active.alg, privateJwk: parseJwk(active.private_jwk) },
    publicJwks: rows.map((r) => parseJwk(r.public_jwk)),
  };
}

/** The private key of the active signing key, ready for jose's SignJWT. */
export async function activeSigningKey(ctx: AppContext): Promise<{ kid: string; alg: string; key: CryptoKey }> {
  const { active } = await loadSigningKeys(ctx);
  const key = (await importJWK(active.privateJwk, active.alg)) as CryptoKey;
  return { kid: active.kid, alg: active.alg, key };
}

function parseJwk(v: unknown): JWK {
  return (typeof v === 'string' ? JSON.parse(v) : v) as JWK;
}
