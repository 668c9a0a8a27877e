// The mailer: the one way the service sends mail (ctx.mailer). Every message is written to the mail
// queue first. With SMTP configured (SITELINE_SMTP_URL) a worker sends it, retrying with exponential
// backoff while the server is unreachable or answers 4xx; a 5xx answer or too many attempts records it
// as failed (shown on /staff/mail). Without SMTP on a loopback base URL (or SITELINE_MAIL_OUTBOX=1) the
// message goes to the development outbox at once. docs/mail.md.
import os from 'node:os';
import crypto from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailContext } from './mail-context.ts';
import type { MailConfig } from '../config.ts';
import { htmlFromText, type MailMessage } from './message.ts';
import { claimMail, enqueueMail, failAbandoned, mailCountSince, markFailed, markRetry, markSent, type QueuedMail } from './mail-queue.ts';
import { writeToOutbox } from './dev-outbox.ts';

type MailerCtx = MailContext;

/** How long a claim holds a message: far longer than one SMTP exchange (timeouts below). */
const LEASE_MS = 120_000;
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 } as const;

export interface Mailer {
  readonly transport: MailConfig['transport'];
  /** Queues a message (outbox: writes it there at once). Resolves once it is durable. */
  send(msg: MailMessage): Promise<{ id: number }>;
  /** Messages queued to `to` with `subject` since `since` (flood limits). */
  countSince(to: string, subject: string, since: Date): Promise<number>;
  /** Starts the sending worker in this process (SMTP only; a no-op otherwise). */
  startWorker(): void;
  /** Sends due messages until none is due (tests, and the worker's loop). Returns how many were tried. */
  drain(): Promise<number>;
  /** Asks the SMTP server for a greeting; logs the outcome. Never throws. */
  checkServer(): Promise<boolean>;
  /**
   * Stops the worker: the message in hand may finish within waitMs (undefined: however long it takes);
   * then the connection is closed. A message cut off stays claimed until its lease passes, then is sent again.
   */
  stop(waitMs?: number): Promise<void>;
}

/** host:port of an SMTP URL, for logs (never the user or password). */
export function smtpServerName(smtpUrl: string): string {
  const u = new URL(smtpUrl);
  return `${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'smtps:' ? '465' : '587')}`;
}

/** The delay before attempt n+1 after n failed attempts: base·2^(n-1), capped, with up to 10% jitter. */
function retryDelayMs(config: MailConfig, attempts: number): number {
  const raw = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(raw * (1 + Math.random() * 0.1));
}

/** A mail server's answer that will not change on retry: 5xx (unknown mailbox, refused sender, ...). */
function permanent(err: unknown): boolean {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

function describe(err: unknown): string {
  const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
  const text = (e.response ?? e.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 500);
  return [e.responseCode ? String(e.responseCode) : e.code, text].filter(Boolean).join(' ');
}

// Long because: the mailer is one closure (its transport, worker loop and wake-ups shared by every
// method of the object it returns); each method is short.
export function createMailer(ctx: MailerCtx): Mailer {
  const config = ctx.config.mail;
  const workerId = `${os.hostname()}:${process.pid}:mail:${crypto.randomBytes(3).toString('hex')}`;
  let transporter: Transporter | undefined;
  const smtp = () => (transporter ??= nodemailer.createTransport({ url: config.smtpUrl!, ...SMTP_TIMEOUTS }));
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let draining: Promise<number> | undefined;
  /** A message was queued while a pass ran: run another before sleeping. */
  let kicked = false;

  async function sendOne(mail: QueuedMail): Promise<void> {
    try {
      await smtp().sendMail({ from: config.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      await markSent(ctx, mail, workerId);
      ctx.logger.info({ mailId: mail.id, attempts: mail.attempts, subject: mail.subject }, 'mail sent');
    } catch (err) {
      const reason = describe(err);
      if (permanent(err) || mail.attempts >= config.maxAttempts) {
        const why = permanent(err) ? reason : `${reason} (gave up after ${mail.attempts} attempts)`;
        await markFailed(ctx, mail, workerId, why);
        ctx.logger.error({ mailId: mail.id, attempts: mail.attempts, error: why }, 'mail could not be delivered: recorded as failed (see /staff/mail)');
      } else {
        const delay = retryDelayMs(config, mail.attempts);
        await markRetry(ctx, mail, workerId, reason, delay);
        ctx.logger.warn(
          { mailId: mail.id, attempts: mail.attempts, retryInMs: delay, error: reason, server: smtpServerName(config.smtpUrl!) },
          'mail not sent yet: will retry',
        );
      }
    }
  }

  async function drainOnce(): Promise<number> {
    let tried = 0;
    await failAbandoned(ctx, config.maxAttempts);
    for (;;) {
      const mail = await claimMail(ctx, workerId, LEASE_MS, config.maxAttempts);
      if (!mail) return tried;
      tried++;
      await sendOne(mail);
    }
  }

  const drain = (): Promise<number> => {
    if (config.transport !== 'smtp') return Promise.resolve(0);
    // One pass at a time in this process; a second caller waits for it and then runs its own.
    // Only the order matters here: the previous pass's failure was delivered to its own caller.
    const next = (draining ?? Promise.resolve(0)).catch(() => 0).then(() => drainOnce());
    draining = next;
    return next;
  };

  return {
    transport: config.transport,
    async send(msg) {
      const html = htmlFromText(msg.subject, msg.text);
      if (config.transport !== 'smtp') {
        // The dev outbox (or, on a refused configuration that still got here, the same: never lost).
        const id = await enqueueMail(ctx, { ...msg, html }, 'sent');
        await writeToOutbox(ctx, { to: msg.to, subject: msg.subject, body: msg.text });
        return { id };
      }
      const id = await enqueueMail(ctx, { ...msg, html });
      ctx.logger.info({ mailId: id, subject: msg.subject }, 'mail queued');
      kicked = true;
      wake?.();
      return { id };
    },
    countSince: (to, subject, since) => mailCountSince(ctx, to, subject, since),
    drain,
    startWorker() {
      if (config.transport !== 'smtp' || running) return;
      running = true;
      loop = (async () => {
        while (running) {
          kicked = false;
          try {
            await drain();
          } catch (err) {
            ctx.logger.warn({ err }, 'mail worker: queue not reachable, trying again');
          }
          if (!running) break;
          if (kicked) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, config.pollMs);
            timer.unref();
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
      })();
    },
    async checkServer() {
      if (config.transport !== 'smtp') return true;
      const server = smtpServerName(config.smtpUrl!);
      try {
        await smtp().verify();
        ctx.logger.info({ server }, 'SMTP server answers');
        return true;
      } catch (err) {
        ctx.logger.warn(
          { server, error: describe(err) },
          `SMTP server ${server} (SITELINE_SMTP_URL) cannot be reached or refused the connection: the service runs, mail is queued and sent when it answers`,
        );
        return false;
      }
    },
    async stop(waitMs?: number) {
      running = false;
      wake?.();
      const finished = (async () => {
        await loop;
        await draining?.catch(() => undefined); // waited for, not judged: its caller has its failure
      })();
      if (waitMs === undefined) await finished;
      else {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([finished, new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
        clearTimeout(timer);
      }
      transporter?.close();
    },
  };
}
