// Stores scrubbed feedback once per submissionId and reads it back for staff. A failed write is an
// answer, not an exception: the caller is told to retry with the same submissionId.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { FeedbackAnswer, FeedbackCategory } from './feedback-form.ts';
import { scrubFeedbackText, type ScrubResult } from './scrub.ts';

export type FeedbackChannel = 'mcp' | 'web';

export interface StoredFeedback {
  submissionId: string;
  accountId: string | null;
  category: FeedbackCategory;
  /** The scrubbed text, exactly as stored. */
  message: string;
  affectedToolName: string | null;
  contactConsent: boolean;
  /** The account's e-mail, kept only when the user agreed to be contacted. */
  contactEmail: string | null;
  streetAddressesShared: boolean;
  redactions: ScrubResult['redactions'];
  channel: FeedbackChannel;
  createdAt: string;
  /** Set when staff reviewed it (/staff/feedback, `siteline feedback review`). */
  review: { at: string; by: string; note: string } | null;
}

export type SubmitOutcome =
  | { kind: 'stored'; feedback: StoredFeedback }
  /** The same submissionId was stored before for this account: a successful idempotent retry. */
  | { kind: 'duplicate'; feedback: StoredFeedback }
  /** The submissionId belongs to another account's report. */
  | { kind: 'id_taken'; submissionId: string }
  | { kind: 'write_failed'; submissionId: string };

export interface SubmitRequest {
  submissionId?: string | undefined;
  accountId: string;
  answer: FeedbackAnswer;
  channel: FeedbackChannel;
}

export const newSubmissionId = (): string => crypto.randomUUID();

/** scrub -> insert once -> (stored | duplicate | id_taken | write_failed). */
export async function submitFeedback(ctx: AppContext, req: SubmitRequest): Promise<SubmitOutcome> {
  const submissionId = (req.submissionId ?? newSubmissionId()).toLowerCase();
  const scrubbed = await scrubFeedbackText(req.answer.message, { keepStreetAddresses: req.answer.shareStreetAddresses });
  try {
    const inserted = await ctx.db.query<FeedbackRow>(
      `INSERT INTO service_feedback (submission_id, account_id, category, message, affected_tool, contact_consent, contact_email,
         street_addresses_shared, redactions, channel, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6 THEN (SELECT email FROM accounts WHERE account_id = $2) END, $7, $8::jsonb, $9, $10)
       ON CONFLICT (submission_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        submissionId,
        req.accountId,
        req.answer.category,
        scrubbed.text,
        req.answer.affectedToolName,
        req.answer.contactConsent,
        req.answer.shareStreetAddresses,
        JSON.stringify(scrubbed.redactions),
        req.channel,
        ctx.clock.now().toISOString(),
      ],
    );
    if (inserted[0]) return { kind: 'stored', feedback: fromRow(inserted[0]) };
    const existing = await ctx.db.query<FeedbackRow>(`SELECT ${COLUMNS} FROM service_feedback WHERE submission_id = $1`, [submissionId]);
    if (existing[0] && existing[0].account_id === req.accountId) return { kind: 'duplicate', feedback: fromRow(existing[0]) };
    if (existing[0]) return { kind: 'id_taken', submissionId };
    return { kind: 'write_failed', submissionId };
  } catch (err) {
    ctx.logger.error({ err, submissionId }, 'feedback write failed');
    return { kind: 'write_failed', submissionId };
  }
}

/** The report stored under a submissionId, if any: a retry is answered from it before any form is shown. */
export async function feedbackBySubmissionId(ctx: AppContext, submissionId: string): Promise<StoredFeedback | null> {
  const rows = await ctx.db.query<FeedbackRow>(`SELECT ${COLUMNS} FROM service_feedback WHERE submission_id = $1`, [submissionId.toLowerCase()]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface FeedbackFilter {
  limit?: number;
  category?: FeedbackCategory;
  /** Only reports received at or after this instant. */
  since?: Date;
}

/** Newest first, for staff (CLI and web). */
export async function listFeedback(ctx: AppContext, filter: FeedbackFilter = {}): Promise<StoredFeedback[]> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
  const rows = await ctx.db.query<FeedbackRow>(
    `SELECT ${COLUMNS} FROM service_feedback
     WHERE ($1::text IS NULL OR category = $1) AND ($2::timestamptz IS NULL OR created_at >= $2)
     ORDER BY created_at DESC, submission_id LIMIT ${limit}`,
    [filter.category ?? null, filter.since?.toISOString() ?? null],
  );
  return rows.map(fromRow);
}

const COLUMNS =
  'submission_id, account_id, category, message, affected_tool, contact_consent, contact_email, street_addresses_shared, redactions, channel, created_at, reviewed_at, reviewed_by, review_note';

interface FeedbackRow {
  submission_id: string;
  account_id: string | null;
  category: string;
  message: string;
  affected_tool: string | null;
  contact_consent: boolean;
  contact_email: string | null;
  street_addresses_shared: boolean;
  redactions: ScrubResult['redactions'] | string;
  channel: string;
  created_at: Date | string;
  reviewed_at: Date | string | null;
  reviewed_by: string | null;
  review_note: string | null;
}

function fromRow(r: FeedbackRow): StoredFeedback {
  return {
    submissionId: r.submission_id,
    accountId: r.account_id,
    category: r.category as FeedbackCategory,
    message: r.message,
    affectedToolName: r.affected_tool,
    contactConsent: r.contact_consent,
    contactEmail: r.contact_email,
    streetAddressesShared: r.street_addresses_shared,
    redactions: typeof r.redactions === 'string' ? JSON.parse(r.redactions) : r.redactions,
    channel: r.channel as FeedbackChannel,
    createdAt: new Date(r.created_at).toISOString(),
    review: r.reviewed_at ? { at: new Date(r.reviewed_at).toISOString(), by: r.reviewed_by ?? '', note: r.review_note ?? '' } : null,
  };
}
