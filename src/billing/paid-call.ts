// The priced unit as one sequence, the same for every surface that sells it:
//   claimIdempotencyKey (when the caller sent a key)  -> replay, refuse a reused key, or go on
//   -> answer                                          the caller's function: the snapshot, say
//   -> spendCredit on an answered one                  balance, ledger entry and stored answer in one statement
//      or storeFreeResponse on one that is not         free, but replayed the same
//   -> releaseIdempotencyKey                           when nothing was stored (out of credit, or the answer threw)
// The outcome says what happened in the billing's own words; the surface words it for its reader
// (src/rest/sites-check.ts gives the HTTP status and headers).
import type { AppContext } from '../context.ts';
import { creditBalance, spendCredit } from './credit-ledger.ts';
import { claimIdempotencyKey, releaseIdempotencyKey, requestDigest, storeFreeResponse } from './idempotency.ts';

/** An answer that can be sold: only an answered one costs credit; `json` is what a replay returns. */
export interface SellableAnswer {
  answered: boolean;
  json: string;
}

export interface PaidCallRequest {
  accountId: string;
  keyId: string | null;
  /** What was bought, on the ledger entry (e.g. `sites/check <request id>`). */
  reference: string;
  /** The caller's Idempotency-Key, already checked for form, and what identifies the request it names. */
  idempotency?: { key: string; method: string; path: string; body: string };
}

export type PaidCallOutcome<A extends SellableAnswer> =
  /** The key was used with another request: nothing answered, nothing charged. */
  | { kind: 'key_reused' }
  /** A request with the key is still running: nothing answered, nothing charged. */
  | { kind: 'in_flight' }
  /** The stored answer of an earlier request with the key, not charged again. */
  | { kind: 'replayed'; json: string; balance: number }
  /** Not answered (answered:false): free. */
  | { kind: 'free'; answer: A; balance: number }
  | { kind: 'charged'; answer: A; charged: number; balance: number }
  /** Answered, but the balance is short: nothing was spent and the answer is not given. */
  | { kind: 'out_of_credit'; balance: number };

export async function sellAnswer<A extends SellableAnswer>(ctx: AppContext, req: PaidCallRequest, answer: () => Promise<A>): Promise<PaidCallOutcome<A>> {
  const idem = req.idempotency;
  if (idem) {
    const claim = await claimIdempotencyKey(ctx, req.accountId, idem.key, requestDigest(idem.method, idem.path, idem.body));
    if (claim.kind === 'mismatch') return { kind: 'key_reused' };
    if (claim.kind === 'in_flight') return { kind: 'in_flight' };
    if (claim.kind === 'replay') return { kind: 'replayed', json: claim.response.body, balance: await creditBalance(ctx.db, req.accountId) };
  }
  try {
    const a = await answer();
    if (!a.answered) {
      const balance = await creditBalance(ctx.db, req.accountId);
      if (idem) await storeFreeResponse(ctx, req.accountId, idem.key, a.json, balance);
      return { kind: 'free', answer: a, balance };
    }
    const spent = await spendCredit(ctx, {
      accountId: req.accountId,
      keyId: req.keyId,
      reference: req.reference,
      ...(idem ? { idempotency: { key: idem.key, body: a.json } } : {}),
    });
    if (spent.ok) return { kind: 'charged', answer: a, charged: spent.charged, balance: spent.balance };
    if (idem) await releaseIdempotencyKey(ctx, req.accountId, idem.key);
    return { kind: 'out_of_credit', balance: spent.balance };
  } catch (err) {
    // The answer failed (bad input, say): the claim is given up so a corrected retry is answered. A failure
    // to release is logged, and the original error is the one the caller sees.
    if (idem) {
      await releaseIdempotencyKey(ctx, req.accountId, idem.key).catch((releaseErr: unknown) =>
        ctx.logger.error(
          { err: releaseErr instanceof Error ? releaseErr.message : String(releaseErr), key: idem.key },
          'could not release an idempotency key after a failed answer; it is taken over after IN_FLIGHT_TAKEOVER_MS',
        ),
      );
    }
    throw err;
  }
}
