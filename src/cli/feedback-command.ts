// `siteline feedback list [--limit N] [--category C] [--since DATE] [--json]`: the reports users sent,
// newest first, read in-process from the local database (SITELINE_DATA_DIR or DATABASE_URL). Staff only.
// Exit 0 ok; 2 bad usage.
import { JSON_FLAG, UsageError, type Command, type CommandInput } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { out } from './output.ts';
import { CATEGORY_LABELS, FEEDBACK_CATEGORIES, type FeedbackCategory } from '../feedback/feedback-form.ts';
import type { FeedbackFilter, StoredFeedback } from '../feedback/feedback-store.ts';

function filterOf(flags: CommandInput['flags']): FeedbackFilter {
  const filter: FeedbackFilter = {};
  if (flags.limit !== undefined) {
    const n = Number(flags.limit);
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError('--limit needs a whole number from 1 to 1000');
    filter.limit = n;
  }
  if (flags.category !== undefined) {
    if (!(FEEDBACK_CATEGORIES as readonly string[]).includes(String(flags.category))) throw new UsageError(`--category must be one of ${FEEDBACK_CATEGORIES.join(', ')}`);
    filter.category = flags.category as FeedbackCategory;
  }
  if (flags.since !== undefined) {
    const v = String(flags.since);
    const d = new Date(v);
    if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime())) throw new UsageError('--since needs a date such as 2026-11-01');
    filter.since = d;
  }
  return filter;
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

async function runList({ flags, io }: CommandInput): Promise<number> {
  const filter = filterOf(flags);
  const [{ loadConfig }, { createLogger }, { openContext }, { listFeedback }] = await Promise.all([
    import('../config.ts'),
    import('../logger.ts'),
    import('../service.ts'),
    import('../feedback/feedback-store.ts'),
  ]);
  const ctx = await openContext(loadConfig(io.env), { logger: createLogger('warn', io.stderr) });
  try {
    const items = await listFeedback(ctx, filter);
    io.stdout.write(flags.json ? JSON.stringify(items, null, 2) + '\n' : formatFeedback(items));
    return EXIT.ok;
  } finally {
    await ctx.db.close();
  }
}

export const feedbackCommand: Command = {
  name: 'feedback',
  summary: 'Staff: read the feedback users sent',
  usage: 'feedback <command> [flags]',
  description: 'Works on the local database (SITELINE_DATA_DIR or DATABASE_URL), not through the service.',
  subcommands: [
    {
      name: 'list',
      summary: 'Feedback reports, newest first',
      usage: 'feedback list [--limit N] [--category C] [--since YYYY-MM-DD] [--json]',
      description: `Default limit 50, at most 1000. Categories: ${FEEDBACK_CATEGORIES.join(', ')}.`,
      flags: [
        { name: 'limit', value: 'N', description: 'At most N reports (1 to 1000, default 50)' },
        { name: 'category', value: 'C', description: 'Only this category' },
        { name: 'since', value: 'DATE', description: 'Only reports from this date on (YYYY-MM-DD)' },
        JSON_FLAG,
      ],
      examples: ['siteline feedback list --category problem --since 2026-11-01'],
      run: runList,
    },
  ],
};
