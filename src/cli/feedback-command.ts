// `siteline feedback list [--limit N] [--category C] [--since DATE] [--json]`: the reports users sent,
// newest first, read in-process from the local database (PGlite data directory or DATABASE_URL).
// Exit 0 ok; 2 bad usage.
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openContext } from '../service.ts';
import { CATEGORY_LABELS, FEEDBACK_CATEGORIES, type FeedbackCategory } from '../feedback/feedback-form.ts';
import { listFeedback, type FeedbackFilter, type StoredFeedback } from '../feedback/feedback-store.ts';

const USAGE = `Usage:
  siteline feedback list [--limit N] [--category C] [--since YYYY-MM-DD] [--json]
      newest first (default limit 50, at most 1000); categories: ${FEEDBACK_CATEGORIES.join(', ')}
`;

function parseList(argv: string[]): (FeedbackFilter & { json: boolean }) | string {
  const out: FeedbackFilter & { json: boolean } = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--json') out.json = true;
    else if (flag === '--limit') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 1000) return '--limit needs a whole number from 1 to 1000';
      out.limit = n;
    } else if (flag === '--category') {
      const c = value();
      if (!(FEEDBACK_CATEGORIES as readonly string[]).includes(c ?? '')) return `--category must be one of ${FEEDBACK_CATEGORIES.join(', ')}`;
      out.category = c as FeedbackCategory;
    } else if (flag === '--since') {
      const v = value() ?? '';
      const d = new Date(v);
      if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime())) return '--since needs a date such as 2026-11-01';
      out.since = d;
    } else return `unexpected "${a}"`;
  }
  return out;
}

export function formatFeedback(items: StoredFeedback[]): string {
  if (items.length === 0) return 'No feedback.\n';
  const blocks = items.map((f) => {
    const head = [
      f.createdAt.slice(0, 19).replace('T', ' '),
      CATEGORY_LABELS[f.category],
      f.affectedToolName ? `tool ${f.affectedToolName}` : null,
      `via ${f.channel}`,
      f.contactEmail ? `contact ${f.contactEmail}` : 'no contact',
      f.submissionId,
    ].filter(Boolean);
    const removed = Object.keys(f.redactions);
    return `${head.join(' · ')}\n${f.message.replace(/^/gm, '    ')}${removed.length ? `\n    (removed: ${removed.join(', ')})` : ''}`;
  });
  return `${blocks.join('\n\n')}\n`;
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === 'help') {
    process.stdout.write(USAGE);
    return sub ? 0 : 2;
  }
  if (sub !== 'list') {
    process.stderr.write(`siteline feedback: unknown subcommand "${sub}"\n\n${USAGE}`);
    return 2;
  }
  const args = parseList(rest);
  if (typeof args === 'string') {
    process.stderr.write(`siteline feedback list: ${args}\n\n${USAGE}`);
    return 2;
  }
  const ctx = await openContext(loadConfig(), { logger: createLogger('warn', process.stderr) });
  try {
    const { json, ...filter } = args;
    const items = await listFeedback(ctx, filter);
    process.stdout.write(json ? JSON.stringify(items, null, 2) + '\n' : formatFeedback(items));
    return 0;
  } finally {
    await ctx.db.close();
  }
}
