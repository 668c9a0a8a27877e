// Expired auth rows are deleted, not kept forever: web sessions and OAuth artefacts a day after they
// expire, agent credentials a week after (until then a late caller is told "expired", not
// "unknown"), and unclaimed agent registrations a week after their claim window closed, once no
// credential of theirs is left. Password reset, e-mail change and undo links go a day after they expire,
// and sent mail a month after it was sent (its record; the body is already gone, docs/mail.md).
// The service runs this at start and hourly.
import type { AppContext } from '../context.ts';
import { sweepSentMail } from '../mail/mail-queue.ts';

const DAY_MS = 24 * 3600_000;
const SWEEP_INTERVAL_MS = 3600_000;

export interface SweepReport {
  webSessions: number;
  oauthArtefacts: number;
  agentCredentials: number;
  agentRegistrations: number;
  accountLinks: number;
  sentMail: number;
}

export async function sweepExpiredAuthRows(ctx: AppContext): Promise<SweepReport> {
  const now = ctx.clock.now().getTime();
  const dayAgo = new Date(now - DAY_MS).toISOString();
  const weekAgo = new Date(now - 7 * DAY_MS).toISOString();
  const count = async (sql: string, params: unknown[]) =>
    (await ctx.db.query<{ n: number }>(`WITH d AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM d`, params))[0]!.n;
  const report: SweepReport = {
    webSessions: await count('DELETE FROM web_sessions WHERE expires_at < $1', [dayAgo]),
    oauthArtefacts: await count('DELETE FROM oidc_models WHERE expires_at < $1', [dayAgo]),
    agentCredentials: await count('DELETE FROM agent_credentials WHERE expires_at < $1', [weekAgo]),
    agentRegistrations: await count(
      `DELETE FROM agent_registrations r
        WHERE r.account_id IS NULL AND r.claim_expires_at < $1
          AND NOT EXISTS (SELECT 1 FROM agent_credentials c WHERE c.registration_id = r.registration_id)`,
      [weekAgo],
    ),
    accountLinks:
      (await count('DELETE FROM password_resets WHERE expires_at < $1', [dayAgo])) +
      (await count('DELETE FROM email_changes WHERE expires_at < $1', [dayAgo])) +
      (await count('DELETE FROM email_change_undos WHERE expires_at < $1', [dayAgo])),
    sentMail: await sweepSentMail(ctx, new Date(now - 30 * DAY_MS)),
  };
  if (Object.values(report).some((n) => n > 0)) ctx.logger.info({ swept: report }, 'expired auth rows deleted');
  return report;
}

/** Sweeps once (awaited), then every SWEEP_INTERVAL_MS; the timer does not keep the process alive. */
export async function scheduleAuthSweep(ctx: AppContext): Promise<() => void> {
  const run = () => sweepExpiredAuthRows(ctx).catch((err: unknown) => ctx.logger.warn({ err }, 'auth sweep failed'));
  await run();
  const timer = setInterval(() => void run(), SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
