// oidc-provider's storage (clients, grants, codes, refresh tokens, sessions, interactions) in the
// service's database, so every instance shares it. Expiry uses wall time, as oidc-provider does.
// A failed write or read is rethrown naming the model and operation only: the payload (refresh tokens,
// session ids, grants) and the id are parameters and never reach an error or a log line.
import { DbQueryError, type Db } from '../db/database.ts';

async function storage<T>(model: string, op: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const code = err instanceof DbQueryError ? err.code : 'unknown';
    throw new DbQueryError(code, `oidc storage ${model}.${op}`, `oidc storage ${model}.${op} failed (SQLSTATE ${code})`, err);
  }
}

/** A registered client nobody uses expires this long after registration or after its last token's expiry. */
export const CLIENT_UNUSED_TTL_S = 30 * 24 * 3600;

/** Who held a revoked grant: the account and client named by its stored codes and refresh tokens. */
export interface GrantHolder {
  accountId: string;
  clientId: string;
}

export interface AdapterHooks {
  /**
   * oidc-provider revoked a grant (an authorization code or a rotated-out refresh token used again, a
   * refresh token revoked): its stored rows are gone; the JWT access tokens it issued are not stored,
   * so the caller records their revocation (src/auth/token-revocation.ts).
   */
  onGrantRevoked?: (grantId: string, holders: GrantHolder[]) => Promise<void>;
}

export function dbAdapterClass(db: Db, hooks: AdapterHooks = {}) {
  return class DbAdapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      const ttl = expiresIn || (this.model === 'Client' ? CLIENT_UNUSED_TTL_S : 0);
      const expiresAt = ttl ? new Date(Date.now() + ttl * 1000).toISOString() : null;
      // A client in use lives at least as long as what it holds, plus the unused-client period.
      if (this.model !== 'Client' && typeof payload.clientId === 'string' && expiresIn) {
        const until = new Date(Date.now() + (expiresIn + CLIENT_UNUSED_TTL_S) * 1000).toISOString();
        await storage('Client', 'extend', () =>
          db.query(`UPDATE oidc_models SET expires_at = $2 WHERE model = 'Client' AND id = $1 AND expires_at IS NOT NULL AND expires_at < $2`, [
            payload.clientId,
            until,
          ]),
        );
      }
      await storage(this.model, 'upsert', () =>
        db.query(
          `INSERT INTO oidc_models (model, id, payload, grant_id, user_code, uid, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, user_code = EXCLUDED.user_code,
           uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
          [this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiresAt],
        ),
      );
    }

    private async one(where: string, value: string): Promise<Record<string, unknown> | undefined> {
      // A NUL can be in no stored id or code (PostgreSQL text cannot hold one): not found, not a storage error.
      if (typeof value !== 'string' || value.includes('\u0000')) return undefined;
      const rows = await storage(this.model, `find by ${where}`, () =>
        db.query<{ payload: Record<string, unknown> | string }>(
          `SELECT payload FROM oidc_models WHERE model = $1 AND ${where} = $2 AND (expires_at IS NULL OR expires_at > $3) LIMIT 1`,
          [this.model, value, new Date().toISOString()],
        ),
      );
      const p = rows[0]?.payload;
      return p === undefined ? undefined : typeof p === 'string' ? JSON.parse(p) : p;
    }

    find(id: string) {
      return this.one('id', id);
    }
    findByUserCode(userCode: string) {
      return this.one('user_code', userCode);
    }
    findByUid(uid: string) {
      return this.one('uid', uid);
    }

    async consume(id: string): Promise<void> {
      await storage(this.model, 'consume', () =>
        db.query(`UPDATE oidc_models SET payload = payload || jsonb_build_object('consumed', $3::bigint) WHERE model = $1 AND id = $2`, [
          this.model,
          id,
          Math.floor(Date.now() / 1000),
        ]),
      );
    }

    async destroy(id: string): Promise<void> {
      await storage(this.model, 'destroy', () => db.query('DELETE FROM oidc_models WHERE model = $1 AND id = $2', [this.model, id]));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // oidc-provider calls this once per model, concurrently: one statement deletes every row of the
      // grant, and whichever call deleted them reads who held it from what it deleted.
      const gone = await storage(this.model, 'revokeByGrantId', () =>
        db.query<{ payload: Record<string, unknown> | string }>('DELETE FROM oidc_models WHERE grant_id = $1 RETURNING payload', [grantId]),
      );
      const holders = new Map<string, GrantHolder>();
      for (const row of gone) {
        const p = typeof row.payload === 'string' ? (JSON.parse(row.payload) as Record<string, unknown>) : row.payload;
        if (typeof p.accountId === 'string' && typeof p.clientId === 'string')
          holders.set(`${p.accountId} ${p.clientId}`, { accountId: p.accountId, clientId: p.clientId });
      }
      if (holders.size && hooks.onGrantRevoked) await hooks.onGrantRevoked(grantId, [...holders.values()]);
    }
  };
}
