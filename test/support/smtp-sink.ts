// A real SMTP server for tests (the smtp-server package), each message parsed with mailparser. It can
// be stopped and started again on the same port (a mail server that goes down and comes back), and it
// refuses recipients a test names with a permanent 550.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';

export interface Received {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

export class SmtpSink {
  readonly received: Received[] = [];
  private server: SMTPServer | undefined;
  port = 0;
  /** Recipients refused with 550 (a test may change it while the server runs). */
  constructor(readonly refuse: Set<string> = new Set()) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo: (address, _session, cb) => {
        if (this.refuse.has(address.address.toLowerCase())) return cb(Object.assign(new Error('5.1.1 No such mailbox here'), { responseCode: 550 }));
        cb();
      },
      onData: (stream, _session, cb) => {
        simpleParser(stream)
          .then((m: ParsedMail) => {
            const to = Array.isArray(m.to) ? m.to.map((a) => a.text).join(', ') : (m.to?.text ?? '');
            this.received.push({
              to,
              from: m.from?.text ?? '',
              subject: m.subject ?? '',
              text: m.text ?? '',
              html: typeof m.html === 'string' ? m.html : '',
              messageId: m.messageId ?? '',
            });
            cb();
          })
          .catch(cb);
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** The messages to `to` once at least `n` arrived (polls; fails after the timeout). */
  async waitFor(to: string, n = 1, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mine = this.received.filter((m) => m.to.toLowerCase().includes(to.toLowerCase()));
      if (mine.length >= n) return mine;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} message(s) to ${to}; got ${mine.length}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Environment for a service that mails through `sink`, retrying fast. */
export function smtpEnv(sink: SmtpSink): Record<string, string> {
  return {
    SITELINE_SMTP_URL: sink.url,
    SITELINE_MAIL_FROM: 'siteline <noreply@siteline.test>',
    SITELINE_MAIL_POLL_MS: '50',
    SITELINE_MAIL_RETRY_BASE_MS: '100',
    SITELINE_MAIL_RETRY_MAX_MS: '300',
    SITELINE_MAIL_OUTBOX: '0',
  };
}
