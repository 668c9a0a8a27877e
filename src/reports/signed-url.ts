// Download links for saved exports: HMAC-SHA256 over the export id and the expiry, with a key kept in
// the database (one row, created on first use) so every instance on one PostgreSQL signs and checks
// alike. A link past its expiry or with any part altered is refused.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { instanceSecret } from '../db/instance-secret.ts';

/** How long a download link works. */
export const EXPORT_URL_TTL_S = 24 * 60 * 60;
export const EXPORT_PATH_PREFIX = '/reports/exports';

const urlKey = (ctx: AppContext): Promise<Buffer> => instanceSecret(ctx, 'report_url_keys');

const mac = (key: Buffer, exportId: string, expires: number) =>
  crypto.createHmac('sha256', key).update(`siteline-export:${exportId}:${expires}`).digest('base64url');

export interface SignedExportUrl {
  url: string;
  expiresAt: string;
}

export async function signExportUrl(ctx: AppContext, exportId: string, ttlS = EXPORT_URL_TTL_S): Promise<SignedExportUrl> {
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + ttlS;
  const sig = mac(await urlKey(ctx), exportId, expires);
  return { url: `${ctx.config.baseUrl}${EXPORT_PATH_PREFIX}/${exportId}.pdf?expires=${expires}&sig=${sig}`, expiresAt: new Date(expires * 1000).toISOString() };
}

export type LinkCheck = { ok: true } | { ok: false; reason: 'expired' | 'bad_signature' };

/** Checks a link's expiry and signature (constant-time); the expiry is checked only on a genuine link. */
export async function checkExportLink(ctx: AppContext, exportId: string, expiresRaw: string | null, sig: string | null): Promise<LinkCheck> {
  if (!expiresRaw || !/^\d{1,12}$/.test(expiresRaw) || !sig) return { ok: false, reason: 'bad_signature' };
  const expires = Number(expiresRaw);
  const want = Buffer.from(mac(await urlKey(ctx), exportId, expires));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !crypto.timingSafeEqual(want, got)) return { ok: false, reason: 'bad_signature' };
  if (expires * 1000 <= ctx.clock.now().getTime()) return { ok: false, reason: 'expired' };
  return { ok: true };
}
