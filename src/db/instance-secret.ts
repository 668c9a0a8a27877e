// A secret every instance on one database shares: one row, created on first use (the first writer wins,
// the others read it back), loaded once per context. Used for HMACs that one instance makes and another
// checks: e-mail verification links and report download links.
import crypto from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Db } from './database.ts';

type Ctx = { db: Db; clock: Clock };

/** The one-row tables that hold such a secret (a closed list: the name goes into the SQL text). */
export type SecretTable = 'email_link_keys' | 'report_url_keys';

const loaded = new Map<SecretTable, WeakMap<Ctx, Promise<Buffer>>>();

async function load(ctx: Ctx, table: SecretTable): Promise<Buffer> {
  await ctx.db.query(`INSERT INTO ${table} (id, secret, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING`, [
    crypto.randomBytes(32).toString('base64url'),
    ctx.clock.now().toISOString(),
  ]);
  const rows = await ctx.db.query<{ secret: string }>(`SELECT secret FROM ${table} WHERE id = 1`);
  return Buffer.from(rows[0]!.secret, 'base64url');
}

export function instanceSecret(ctx: Ctx, table: SecretTable): Promise<Buffer> {
  let byCtx = loaded.get(table);
  if (!byCtx) loaded.set(table, (byCtx = new WeakMap()));
  let k = byCtx.get(ctx);
  if (!k) {
    k = load(ctx, table);
    k.catch(() => byCtx.delete(ctx)); // a failed load is tried again on the next call
    byCtx.set(ctx, k);
  }
  return k;
}
