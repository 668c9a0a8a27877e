// Receipts: every write stores one and returns it. A receipt names the operation (what was done, the same
// whichever surface asked: project.save, project.update, ...), the action, the project,
// the time and the field-level changes; updateProject receipts also keep the fields they replaced
// (prior) and wrote (after), which is what an undo restores and checks. Idempotency keys live here.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { canonicalJson, sha256Hex } from '../core/canonical-json.ts';
import { SitelineError, badInput } from '../core/errors.ts';

export interface FieldChange {
  /** A project field (name, lifecycleStatus, externalRef, address, location), or lots / references / analysis. */
  field: string;
  before: unknown;
  after: unknown;
}

/** The domain operations that write receipts (the column receipts.tool holds them; migration 150). project.undo: an undo of lots or references (undo-change.ts). */
export type ReceiptOperation = 'project.save' | 'project.update' | 'project.detach' | 'project.map_listing' | 'project.undo' | 'analysis.run';

export interface Receipt {
  receiptId: string;
  operation: ReceiptOperation;
  action: string;
  projectId: string | null;
  at: string;
  changes: FieldChange[];
  /** For an undo: the receipt it reversed. */
  undoes?: string;
  idempotencyKey?: string;
}

export interface ReceiptRow {
  receipt_id: string;
  account_id: string;
  /** The operation (the column keeps its first name, so an instance of the previous release still reads it). */
  tool: ReceiptOperation;
  action: string;
  project_id: string | null;
  created_at: Date | string;
  changes: FieldChange[];
  prior: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  undoes: string | null;
  idempotency_key: string | null;
  args_digest: string | null;
  result: Record<string, unknown> | null;
}

const RECEIPT_COLUMNS =
  'receipt_id::text AS receipt_id, account_id, tool, action, project_id::text AS project_id, created_at, changes, prior, after, undoes::text AS undoes, idempotency_key, args_digest, result';

export function receiptOf(r: ReceiptRow): Receipt {
  return {
    receiptId: r.receipt_id,
    operation: r.tool,
    action: r.action,
    projectId: r.project_id,
    at: new Date(r.created_at).toISOString(),
    changes: r.changes,
    ...(r.undoes ? { undoes: r.undoes } : {}),
    ...(r.idempotency_key ? { idempotencyKey: r.idempotency_key } : {}),
  };
}

export interface NewReceipt {
  accountId: string;
  operation: ReceiptOperation;
  action: string;
  projectId: string | null;
  changes: FieldChange[];
  prior?: Record<string, unknown>;
  after?: Record<string, unknown>;
  undoes?: string;
  idempotency?: { key: string; argsDigest: string };
}

export async function insertReceipt(
  ctx: AppContext,
  q: Queryable,
  r: NewReceipt,
  result: (receipt: Receipt) => Record<string, unknown>,
): Promise<{ receipt: Receipt; result: Record<string, unknown> }> {
  const receipt: Receipt = {
    receiptId: crypto.randomUUID(),
    operation: r.operation,
    action: r.action,
    projectId: r.projectId,
    at: ctx.clock.now().toISOString(),
    changes: r.changes,
    ...(r.undoes ? { undoes: r.undoes } : {}),
    ...(r.idempotency ? { idempotencyKey: r.idempotency.key } : {}),
  };
  const out = result(receipt);
  await q.query(
    `INSERT INTO receipts (receipt_id, account_id, tool, action, project_id, created_at, changes, prior, after, undoes, idempotency_key, args_digest, result)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      receipt.receiptId,
      r.accountId,
      r.operation,
      r.action,
      r.projectId,
      receipt.at,
      JSON.stringify(r.changes),
      r.prior ? JSON.stringify(r.prior) : null,
      r.after ? JSON.stringify(r.after) : null,
      r.undoes ?? null,
      r.idempotency?.key ?? null,
      r.idempotency?.argsDigest ?? null,
      JSON.stringify(out),
    ],
  );
  return { receipt, result: out };
}

export async function receiptById(q: Queryable, accountId: string, receiptId: string): Promise<ReceiptRow | null> {
  if (!/^[0-9a-f-]{36}$/i.test(receiptId)) return null;
  const rows = await q.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE receipt_id = $1 AND account_id = $2`, [receiptId, accountId]);
  return rows[0] ?? null;
}

export async function receiptsOfProject(q: Queryable, accountId: string, projectId: string, limit: number): Promise<ReceiptRow[]> {
  return q.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE project_id = $1 AND account_id = $2 ORDER BY seq DESC LIMIT $3`, [
    projectId,
    accountId,
    limit,
  ]);
}

/** The receipt (if any) that undid this one. */
export async function undoneBy(q: Queryable, accountId: string, receiptId: string): Promise<ReceiptRow | null> {
  const rows = await q.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE undoes = $1 AND account_id = $2 ORDER BY seq LIMIT 1`, [
    receiptId,
    accountId,
  ]);
  return rows[0] ?? null;
}

/** Digest of a call's arguments, without the key itself and preview (which change nothing). */
export function argsDigest(tool: string, args: Record<string, unknown>): string {
  const { idempotencyKey: _k, preview: _p, ...rest } = args;
  return sha256Hex(canonicalJson({ tool, args: rest }));
}

export function checkIdempotencyKey(key: string): string {
  if (key.length < 1 || key.length > 200) throw badInput('idempotencyKey must be 1 to 200 characters.', { field: 'idempotencyKey' });
  return key;
}

/**
 * A retry with a key already used: the first call's stored result when the arguments are the same,
 * a clear error when they differ, null when the key is new.
 */
export async function replayIdempotent(q: Queryable, accountId: string, key: string, digest: string): Promise<Record<string, unknown> | null> {
  const rows = await q.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE account_id = $1 AND idempotency_key = $2`, [accountId, key]);
  const prev = rows[0];
  if (!prev) return null;
  if (prev.args_digest !== digest)
    throw new SitelineError(
      'conflict',
      `idempotencyKey "${key}" was already used for a different call (${prev.tool} ${prev.action}, receipt ${prev.receipt_id} at ${new Date(prev.created_at).toISOString()}). ` +
        'Reuse a key only to retry exactly the same call; use a new key for a new write.',
      { field: 'idempotencyKey', receiptId: prev.receipt_id },
    );
  return { ...(prev.result ?? {}), idempotentReplay: true };
}

/** True when err is the unique violation of the idempotency index (a concurrent retry won). */
export function isIdempotencyRace(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' && /receipts_idempotency/.test(String(e.message ?? '') + String((err as { constraint?: string }).constraint ?? ''));
}
