// `siteline feedback list [--limit N] [--category C] [--since DATE] [--json]`: the reports users sent,
// newest first; `siteline feedback review <id> --note "..."`: marks one reviewed (a staff action). Staff
// only: through the running service's staff API (src/cli/staff-target.ts) or on the local database.
// Exit 0 ok; 2 bad usage or unknown report; 1 refused (not staff); 4 login needed; 5 unreachable.
import { JSON_FLAG, URL_FLAG, UsageError, type Command, type CommandInput } from './command.ts';
import { OPERATOR_FLAG, runStaff, STAFF_WHERE } from './staff-target.ts';
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
    if (!(FEEDBACK_CATEGORIES as readonly string[]).includes(String(flags.category)))
      throw new UsageError(`--category must be one of ${FEEDBACK_CATEGORIES.join(', ')}`);
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

function formatFeedback(items: StoredFeedback[]): string {
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
  const query = new URLSearchParams();
  if (filter.limit !== undefined) query.set('limit', String(filter.limit));
  if (filter.category) query.set('category', filter.category);
  if (filter.since) query.set('since', filter.since.toISOString());
  return runStaff(io, flags, 'feedback list', {
    service: async (client) => (await client.requestJson<{ feedback: StoredFeedback[] }>('GET', `/staff/api/feedback?${query}`)).feedback,
    database: async (ctx, actor) => (await import('../staff/staff-actions.ts')).viewFeedback(ctx, actor, filter),
    print: (items) => {
      io.stdout.write(flags.json ? JSON.stringify(items, null, 2) + '\n' : formatFeedback(items));
      return EXIT.ok;
    },
  });
}

async function runReview({ args: [id], flags, io }: CommandInput): Promise<number> {
  const note = typeof flags.note === 'string' ? flags.note.trim() : '';
  if (!note) throw new UsageError('say what was done about it with --note "..." (kept with the review and in the staff actions)');
  return runStaff(io, flags, 'feedback review', {
    service: (client) =>
      client.requestJson<{ submissionId: string; reviewedAt: string }>('POST', `/staff/api/feedback/${encodeURIComponent(id!)}/review`, { note }),
    database: async (ctx, actor) => (await import('../staff/staff-actions.ts')).reviewFeedback(ctx, actor, { submissionId: id!, note }),
    print: (r) => {
      if (flags.json) out(io, JSON.stringify({ submissionId: r.submissionId, reviewedAt: r.reviewedAt }, null, 2));
      else out(io, `Feedback ${r.submissionId} marked reviewed.`);
      return EXIT.ok;
    },
  });
}

export const feedbackCommand: Command = {
  name: 'feedback',
  summary: 'Staff: read the feedback users sent',
  usage: 'feedback <command> [flags]',
  description: STAFF_WHERE,
  subcommands: [
    {
      name: 'list',
      summary: 'Feedback reports, newest first',
      usage: 'feedback list [--limit N] [--category C] [--since YYYY-MM-DD] [--url URL] [--json]',
      description: `Default limit 50, at most 1000. Categories: ${FEEDBACK_CATEGORIES.join(', ')}.`,
      flags: [
        { name: 'limit', value: 'N', description: 'At most N reports (1 to 1000, default 50)' },
        { name: 'category', value: 'C', description: 'Only this category' },
        { name: 'since', value: 'DATE', description: 'Only reports from this date on (YYYY-MM-DD)' },
        URL_FLAG,
        OPERATOR_FLAG,
        JSON_FLAG,
      ],
      examples: ['siteline feedback list --category problem --since 2026-11-01'],
      run: runList,
    },
    {
      name: 'review',
      summary: 'Mark a report reviewed, with a note on what was done (recorded in the staff actions)',
      usage: 'feedback review <submission id> --note "..." [--url URL] [--json]',
      flags: [{ name: 'note', value: 'TEXT', description: 'What was done about it (required)' }, URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      args: { min: 1, max: 1, name: 'the submission id (from feedback list)' },
      examples: ['siteline feedback review 0b9c…-… --note "fixed the Cambridge FAR in rules 2026-11"'],
      run: runReview,
    },
  ],
};
