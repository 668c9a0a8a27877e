// The development outbox: where mail goes when no SMTP server is configured on a loopback base URL
// (or SITELINE_MAIL_OUTBOX=1). A database table (readable at /dev/outbox on a loopback base URL) and
// one text file per message under <dataDir>/outbox/, never a silent fake success.
import fs from 'node:fs';
import path from 'node:path';
import type { MailContext } from './mail-context.ts';

export interface OutboxMessage {
  id: number;
  to: string;
  subject: string;
  body: string;
  createdAt: string;
}

type OutboxCtx = Pick<MailContext, 'db' | 'clock' | 'config' | 'logger'>;

export async function writeToOutbox(ctx: OutboxCtx, msg: { to: string; subject: string; body: string }): Promise<number> {
  const at = ctx.clock.now();
  const rows = await ctx.db.query<{ id: number }>('INSERT INTO dev_outbox (to_address, subject, body, created_at) VALUES ($1, $2, $3, $4) RETURNING id', [
    msg.to,
    msg.subject,
    msg.body,
    at.toISOString(),
  ]);
  const id = Number(rows[0]!.id);
  try {
    const dir = path.join(ctx.config.dataDir, 'outbox');
    fs.mkdirSync(dir, { recursive: true });
    const name = `${at.toISOString().replace(/[:.]/g, '-')}-${id}.txt`;
    fs.writeFileSync(path.join(dir, name), `To: ${msg.to}\nSubject: ${msg.subject}\nDate: ${at.toISOString()}\n\n${msg.body}\n`, { mode: 0o600 });
  } catch (err) {
    ctx.logger.warn({ err }, 'could not write the outbox file; the message is in the dev_outbox table');
  }
  ctx.logger.info({ outboxId: id, subject: msg.subject }, 'mail written to the dev outbox');
  return id;
}

/** The newest mail, to one address when `to` is given. */
export async function listMail(ctx: Pick<MailContext, 'db'>, limit = 50, to?: string): Promise<OutboxMessage[]> {
  const rows = await ctx.db.query<{ id: number; to_address: string; subject: string; body: string; created_at: Date | string }>(
    'SELECT id, to_address, subject, body, created_at FROM dev_outbox WHERE ($2::text IS NULL OR to_address = $2) ORDER BY id DESC LIMIT $1',
    [limit, to ?? null],
  );
  return rows.map((r) => ({ id: Number(r.id), to: r.to_address, subject: r.subject, body: r.body, createdAt: new Date(r.created_at).toISOString() }));
}
