// What a feedback report holds, the form that asks the human for it, and the checks an answer must
// pass before it is scrubbed and stored. Shared by the MCP tool and the web form.
import { z } from 'zod';

export const FEEDBACK_CATEGORIES = ['problem', 'wrong_data', 'city_request', 'suggestion', 'praise', 'other'] as const;
export type FeedbackCategory = (typeof FEEDBACK_CATEGORIES)[number];

export const CATEGORY_LABELS: Record<FeedbackCategory, string> = {
  problem: 'Something does not work',
  wrong_data: 'A value or fact looks wrong',
  city_request: 'Please cover a city',
  suggestion: 'Suggestion',
  praise: 'Praise',
  other: 'Other',
};

const MESSAGE_MIN = 3;
export const MESSAGE_MAX = 4000;
export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** A report as the human answered it (before scrubbing). */
export interface FeedbackAnswer {
  category: FeedbackCategory;
  message: string;
  affectedToolName: string | null;
  /** siteline may contact the account's e-mail about this report. */
  contactConsent: boolean;
  /** Keep street addresses in the message (the site the report is about). */
  shareStreetAddresses: boolean;
}

export type AnswerCheck = { ok: true; answer: FeedbackAnswer } | { ok: false; problems: string[] };

const answerSchema = z.object({
  category: z.string(),
  message: z.string(),
  affectedToolName: z.string().optional(),
  contactConsent: z.boolean().optional(),
  shareStreetAddresses: z.boolean().optional(),
});

/**
 * Checks an answer (untrusted: a client or a browser sent it) and says every problem in words.
 * toolNames: the tools a form offered (MCP forms cannot carry a pattern, so they declare an enum);
 * given, the tool name must be one of them.
 */
export function checkAnswer(raw: unknown, toolNames?: readonly string[]): AnswerCheck {
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, problems: ['The form answer must hold a category and a message.'] };
  const a = parsed.data;
  const problems: string[] = [];
  if (!(FEEDBACK_CATEGORIES as readonly string[]).includes(a.category)) problems.push(`Choose a category (one of ${FEEDBACK_CATEGORIES.join(', ')}).`);
  // Control characters other than line breaks and tabs never belong in a message.
  // eslint-disable-next-line no-control-regex
  const message = a.message
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .trim();
  if (message.length < MESSAGE_MIN) problems.push(`Write a message of at least ${MESSAGE_MIN} characters.`);
  if (message.length > MESSAGE_MAX) problems.push(`Keep the message under ${MESSAGE_MAX} characters (it has ${message.length}).`);
  const tool = a.affectedToolName?.trim() || null;
  if (tool !== null && !TOOL_NAME.test(tool))
    problems.push('The tool name should be a tool name such as getFeasibilitySnapshot (letters, digits, _ . -), or left empty.');
  else if (tool !== null && toolNames && !toolNames.includes(tool)) problems.push(`The tool name should be one of ${toolNames.join(', ')}, or left empty.`);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    answer: {
      category: a.category as FeedbackCategory,
      message,
      affectedToolName: tool,
      contactConsent: a.contactConsent === true,
      shareStreetAddresses: a.shareStreetAddresses === true,
    },
  };
}

/** Prefills for the form: the tool name the caller gave, or what the human typed before a problem. */
export interface FormPrefill {
  affectedToolName?: string | null;
  category?: string;
  message?: string;
  contactConsent?: boolean;
  shareStreetAddresses?: boolean;
}

/**
 * The elicitation form (a flat object of primitives, as MCP form mode allows). It declares every
 * rule checkAnswer enforces, so a client can validate before sending: MCP form strings carry no
 * pattern, so the tool name is an enum of the tools (toolNames) rather than free text.
 */
export function feedbackFormSchema(prefill: FormPrefill = {}, toolNames: readonly string[] = []) {
  const withDefault = <T extends Record<string, unknown>>(schema: T, value: unknown): T =>
    value === undefined || value === null || value === '' ? schema : { ...schema, default: value };
  return {
    type: 'object' as const,
    properties: {
      category: withDefault(
        { type: 'string', title: 'What is it about?', enum: [...FEEDBACK_CATEGORIES], enumNames: FEEDBACK_CATEGORIES.map((c) => CATEGORY_LABELS[c]) },
        (FEEDBACK_CATEGORIES as readonly string[]).includes(prefill.category ?? '') ? prefill.category : undefined,
      ),
      message: withDefault(
        {
          type: 'string',
          title: 'Your feedback',
          description: 'E-mail addresses, phone numbers, tokens, keys, card numbers and passwords are removed before it is stored.',
          minLength: MESSAGE_MIN,
          maxLength: MESSAGE_MAX,
        },
        prefill.message,
      ),
      affectedToolName: withDefault(
        { type: 'string', title: 'Tool concerned (optional)', enum: [...toolNames] },
        toolNames.includes(prefill.affectedToolName ?? '') ? prefill.affectedToolName : undefined,
      ),
      contactConsent: { type: 'boolean', title: 'siteline may e-mail me about this feedback', default: prefill.contactConsent === true },
      shareStreetAddresses: {
        type: 'boolean',
        title: 'Keep street addresses in my message (otherwise they are removed)',
        default: prefill.shareStreetAddresses === true,
      },
    },
    required: ['category', 'message'],
  };
}
