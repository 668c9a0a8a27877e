// Saved exports and the export meter. Saving a confirmed export spends one unit of the account's
// monthly allowance in the same transaction as the row it pays for; the spend is one statement that
// cannot overdraw, and a repeat of the same request (same key, inside its window) returns the first
// export without spending again.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import type { ComposedReport } from './compose-report.ts';

/** Exports each account may save per calendar month (UTC), unless staff set another allowance for it (account_export_allowances). */
export const REPORT_EXPORTS_PER_MONTH = 25;
/** The most staff may allow one account in a month. */
export const MAX_EXPORTS_PER_MONTH = 10_000;

/** The account's monthly allowance: the one staff set, else the default. */
const ALLOWANCE_SQL = `COALESCE((SELECT monthly_exports FROM account_export_allowances WHERE account_id = $1), ${REPORT_EXPORTS_PER_MONTH})`;
/** A repeat of the same arguments inside this window is the same export (a retry), not a new one. */
export const SAME_ARGUMENTS_WINDOW_MS = 10 * 60 * 1000;
/** An explicit idempotency key stays bound to its export this long. */
const EXPLICIT_KEY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The idempotency key for a request: the caller's explicit key, or a digest of its arguments. */
export function exportRequestKey(args: unknown, explicitKey?: string | null): { key: string; windowMs: number } {
  if (explicitKey) return { key: `key:${explicitKey}`, windowMs: EXPLICIT_KEY_WINDOW_MS };
  return { key: `args:${crypto.createHash('sha256').update(canonicalJson(args)).digest('hex')}`, windowMs: SAME_ARGUMENTS_WINDOW_MS };
}

/** JSON with object keys sorted, so the same arguments in another order give the same digest. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export interface ExportUsage {
  period: string;
  used: number;
  allowance: number;
  remaining: number;
  /** When the next period starts (the allowance renews). */
  resetsAt: string;
}

function periodOf(now: Date): { period: string; resetsAt: string } {
  const period = now.toISOString().slice(0, 7);
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { period, resetsAt: next.toISOString() };
}

export async function exportUsage(ctx: AppContext, accountId: string): Promise<ExportUsage> {
  const { period, resetsAt } = periodOf(ctx.clock.now());
  const rows = await ctx.db.query<{ used: number; allowance: number }>(
    `SELECT COALESCE((SELECT used FROM report_export_meter WHERE account_id = $1 AND period = $2), 0) AS used, ${ALLOWANCE_SQL} AS allowance`,
    [accountId, period],
  );
  const used = Number(rows[0]?.used ?? 0);
  const allowance = Number(rows[0]?.allowance ?? REPORT_EXPORTS_PER_MONTH);
  return { period, used, allowance, remaining: Math.max(allowance - used, 0), resetsAt };
}

export interface SavedExport {
  exportId: string;
  /** True when this request had been saved before: nothing was spent this time. */
  duplicate: boolean;
  pageCount: number;
  byteSize: number;
  usage: ExportUsage;
}

/** Saves a confirmed export and spends one unit; refuses with nothing spent when the allowance is used up. */
export async function saveExport(
  ctx: AppContext,
  req: { accountId: string; request: { key: string; windowMs: number }; title: string; report: ComposedReport },
): Promise<SavedExport> {
  const now = ctx.clock.now();
  const { period } = periodOf(now);
  const saved = await ctx.db.transaction(async (tx) => {
    // Two identical requests at once on PostgreSQL: the second waits here and then finds the first.
    if (ctx.db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`report-export:${req.accountId}:${req.request.key}`]);
    const earlier = await tx.query<{ export_id: string; page_count: number; byte_size: number }>(
      `SELECT export_id, page_count, byte_size FROM report_exports
       WHERE account_id = $1 AND request_key = $2 AND created_at > $3 ORDER BY created_at DESC LIMIT 1`,
      [req.accountId, req.request.key, new Date(now.getTime() - req.request.windowMs).toISOString()],
    );
    if (earlier[0]) return { exportId: earlier[0].export_id, duplicate: true, pageCount: earlier[0].page_count, byteSize: earlier[0].byte_size };
    // One statement that cannot overdraw, against the account's own allowance (0 allows nothing).
    const spent = await tx.query<{ used: number }>(
      `INSERT INTO report_export_meter (account_id, period, used) SELECT $1, $2, 1 WHERE ${ALLOWANCE_SQL} > 0
       ON CONFLICT (account_id, period) DO UPDATE SET used = report_export_meter.used + 1 WHERE report_export_meter.used < ${ALLOWANCE_SQL}
       RETURNING used`,
      [req.accountId, period],
    );
    if (!spent[0]) return null;
    const exportId = crypto.randomUUID();
    await tx.query(
      `INSERT INTO report_exports (export_id, account_id, request_key, title, page_count, byte_size, sha256, pdf, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [exportId, req.accountId, req.request.key, req.title, req.report.pageCount, req.report.pdf.length, req.report.sha256, req.report.pdf, now.toISOString()],
    );
    return { exportId, duplicate: false, pageCount: req.report.pageCount, byteSize: req.report.pdf.length };
  });
  const usage = await exportUsage(ctx, req.accountId);
  if (!saved) {
    throw new SitelineError(
      'rate_limited',
      `This account has used its ${usage.allowance} report exports for ${usage.period}; nothing was spent. The allowance renews on ${usage.resetsAt.slice(0, 10)}. A preview (preview=true) is free.`,
      { meter: 'records.exports', ...usage },
    );
  }
  return { ...saved, usage };
}

/** The stored PDF of an export, for the download route. */
export async function loadExportPdf(ctx: AppContext, exportId: string): Promise<{ pdf: Buffer; title: string } | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(exportId)) return null;
  const rows = await ctx.db.query<{ pdf: Uint8Array; title: string }>('SELECT pdf, title FROM report_exports WHERE export_id = $1', [exportId]);
  return rows[0] ? { pdf: Buffer.from(rows[0].pdf), title: rows[0].title } : null;
}
