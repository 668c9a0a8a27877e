// The accuracy audits after a start's imports (in the background), as the service runs them: one
// instance audits a place for all. The audit itself (src/importer/audit-place.ts) is passed in by the
// service, so ops/ knows nothing of the importer. Two instances starting together on one
// PostgreSQL database both finish the start's import of a place (one imports, the other finds it
// unchanged) and would both audit it; each place's audit is a claimed job (background_claims), so the
// second skips it while the first holds the claim. Stopping (SIGTERM) ends the audit at its next step
// (it sees the service draining) and gives the claim up before the database closes.
import os from 'node:os';
import crypto from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { claimJob } from './background-claims.ts';

/** A claim lives this long without renewal (an instance that died frees it after this); renewed every third. */
export const AUDIT_CLAIM_LEASE_MS = 60_000;

export interface StartupAudits {
  /** Settles when every claimed audit ended (finished, failed or stopped). */
  readonly done: Promise<void>;
  /** Waits for the audit in hand to stop at its next step (the caller set draining first) and for its claim to be given up. */
  stop(): Promise<void>;
}

/** What the audits need of the context (ops sits in the foundation, under the context): its database, its log, and whether it drains. */
export interface AuditsContext {
  db: Queryable;
  logger: Logger;
  lifecycle?: { draining: boolean } | undefined;
}

/** Audits one place, saying how it goes through `onProgress` (the importer's auditInBackground for one slug). */
export type AuditPlace<C extends AuditsContext = AuditsContext> = (ctx: C, slug: string, onProgress: (msg: string) => void) => Promise<void>;

export function startStartupAudits<C extends AuditsContext>(
  ctx: C,
  slugs: string[],
  auditPlace: AuditPlace<C>,
  holder = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`,
): StartupAudits {
  const done = (async () => {
    const audited: string[] = [];
    for (const slug of slugs) {
      if (ctx.lifecycle?.draining) break;
      const claim = await claimJob(ctx.db, `place-audit:${slug}`, holder, AUDIT_CLAIM_LEASE_MS, (err) =>
        ctx.logger.warn({ place: slug, err: err instanceof Error ? err.message : String(err) }, 'place audit: its claim could not be renewed'),
      );
      if (!claim.claimed) {
        ctx.logger.info({ place: slug, heldBy: claim.heldBy }, 'place audit: another instance is auditing this place; not audited here');
        continue;
      }
      try {
        await auditPlace(ctx, slug, (msg) => ctx.logger.info(msg));
        if (!ctx.lifecycle?.draining) audited.push(slug); // a stopped audit said so in its own line
      } finally {
        await claim.release();
      }
    }
    if (audited.length) ctx.logger.info({ places: audited }, 'place audits finished');
  })().catch((err: unknown) =>
    ctx.logger.warn({ places: slugs, err: err instanceof Error ? err.message : String(err) }, 'place audits stopped; the imports stand'),
  );
  return {
    done,
    stop: () => done,
  };
}
