// submitServiceFeedback (gated, write): the human's own words through a form, never the model's.
// First call -> input_required (form); accepted retry -> validate, scrub, store once per
// submissionId; declined or cancelled -> nothing stored. The 2025 leg cannot carry the form.
import { z } from 'zod';
import { TOOL_NAME, checkAnswer, feedbackFormSchema, type FormPrefill } from '../../feedback/feedback-form.ts';
import { feedbackBySubmissionId, submitFeedback, type StoredFeedback } from '../../feedback/feedback-store.ts';
import { defineTool, noFormReason, toolError, toolResult, type ToolOutcome } from '../tool-definition.ts';

const FEEDBACK_FORM_KEY = 'feedback';

const FORM_MESSAGE = 'Send feedback to the siteline team. Write it in your own words; personal data and credentials are removed before it is stored.';

export const submitServiceFeedback = defineTool({
  name: 'submitServiceFeedback',
  title: 'Send feedback to siteline',
  description:
    "Sends the user's feedback (a problem, a wrong value, a city to cover, a suggestion or praise) to the people running siteline. " +
    'Call it ONLY when the user explicitly asks to send feedback, report a problem, suggest an improvement or praise something; never silently. ' +
    'The user fills a form (the client shows it; on 2026-07-28 the first call returns input_required); nothing is stored if they decline or cancel. ' +
    'Personal data and credentials are removed before storage. If the result says success: false, retry with the same submissionId; ' +
    "a retry of a report already received answers duplicate: true without a form. affectedToolName must be one of this service's tool names.",
  input: z.object({
    submissionId: z.uuid().optional().describe('Omit on a first report (generated server-side). Reuse the returned UUID when retrying the same report.'),
    affectedToolName: z
      .string()
      .max(64)
      .regex(TOOL_NAME, 'affectedToolName must be a tool name such as getFeasibilitySnapshot (letters, digits, _ . -).')
      .optional()
      .describe('The tool the user comments on, e.g. getFeasibilitySnapshot; prefills the form.'),
  }),
  purpose: "Sends the user's own feedback through a form they fill; only when the user asks.",
  output: z.looseObject({
    success: z.boolean().optional(),
    submitted: z.boolean().optional(),
    action: z.enum(['declined', 'cancelled']).optional(),
    submissionId: z.string().optional(),
    duplicate: z.boolean().optional(),
    category: z.string().optional(),
    storedMessage: z.string().optional(),
    removed: z.record(z.string(), z.unknown()).optional(),
    contactConsent: z.boolean().optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  access: 'gated',
  async handler({ submissionId, affectedToolName }, call) {
    const feedbackUrl = `${call.ctx.config.baseUrl}/feedback`;
    const toolNames = call.tools.map((t) => t.name);
    // Settled before any form: a name the form could not take, and a retry of a report already received.
    if (affectedToolName !== undefined && !toolNames.includes(affectedToolName)) {
      const text = `affectedToolName "${affectedToolName}" is not a tool of this service; nothing was sent or stored. Call submitServiceFeedback again with one of: ${toolNames.join(', ')}, or without affectedToolName.`;
      return toolError(text, { success: false, submitted: false, error: { code: 'invalid_arguments', message: text, acceptedToolNames: toolNames } });
    }
    const accountId = call.caller?.accountId;
    if (submissionId !== undefined && accountId) {
      const earlier = await feedbackBySubmissionId(call.ctx, submissionId);
      if (earlier?.accountId === accountId) return received(earlier, true);
      if (earlier) return idTaken(submissionId);
    }
    if (!call.canElicit) return noFormAnswer(feedbackUrl, call.era);
    if (!accountId) return toolError('Feedback is sent from a signed-in account; this token names none. Sign in and retry.');

    const response = call.inputResponses?.[FEEDBACK_FORM_KEY] as { action?: unknown; content?: unknown } | undefined;
    if (!response)
      return askForm(
        { affectedToolName: affectedToolName ?? null },
        call.tools.map((t) => t.name),
      );
    if (response.action !== 'accept') {
      const how = response.action === 'decline' ? 'declined' : 'cancelled';
      return toolResult({ submitted: false, action: how }, `The user ${how} the feedback form. Nothing was sent or stored.`);
    }
    const checked = checkAnswer(response.content, toolNames);
    if (!checked.ok) {
      // Ask again with what they typed kept, so a bad answer loses nothing.
      const content = (response.content ?? {}) as Record<string, unknown>;
      return askForm(
        {
          affectedToolName: typeof content['affectedToolName'] === 'string' ? content['affectedToolName'] : (affectedToolName ?? null),
          ...(typeof content['category'] === 'string' ? { category: content['category'] } : {}),
          ...(typeof content['message'] === 'string' ? { message: content['message'] } : {}),
          contactConsent: content['contactConsent'] === true,
          shareStreetAddresses: content['shareStreetAddresses'] === true,
        },
        toolNames,
        checked.problems,
      );
    }

    const outcome = await submitFeedback(call.ctx, { submissionId, accountId, answer: checked.answer, channel: 'mcp' });
    switch (outcome.kind) {
      case 'stored':
      case 'duplicate':
        return received(outcome.feedback, outcome.kind === 'duplicate');
      case 'id_taken':
        return idTaken(outcome.submissionId);
      case 'write_failed':
        return toolError(
          `The feedback could not be saved (a storage error on siteline's side). Nothing was stored. Retry with the same submissionId ${outcome.submissionId} so it is not stored twice.`,
          { success: false, submissionId: outcome.submissionId, retryWithSameSubmissionId: true, error: { code: 'write_failed' } },
        );
    }
  },
});

/** A report stored (now, or by an earlier call with the same submissionId: nothing is stored twice). */
function received(f: StoredFeedback, duplicate: boolean): ToolOutcome {
  const removed = Object.keys(f.redactions);
  return toolResult(
    {
      success: true,
      submissionId: f.submissionId,
      duplicate,
      category: f.category,
      storedMessage: f.message,
      removed: f.redactions,
      contactConsent: f.contactConsent,
    },
    (duplicate
      ? `This report (${f.submissionId}) was already received; nothing was stored twice.`
      : `Feedback received (submissionId ${f.submissionId}). Thank you.`) + (removed.length ? ` Removed before storage: ${removed.join(', ')}.` : ''),
  );
}

function idTaken(submissionId: string): ToolOutcome {
  return toolError(`The submissionId ${submissionId} belongs to another report. Call again without submissionId to get a new one.`, {
    success: false,
    submissionId,
    error: { code: 'submission_id_taken' },
  });
}

function askForm(prefill: FormPrefill, toolNames: readonly string[], problems: string[] = []): ToolOutcome {
  const message = problems.length ? `${problems.join(' ')} Please correct the form and send it again.` : FORM_MESSAGE;
  return { text: message, formRequest: { key: FEEDBACK_FORM_KEY, message, requestedSchema: feedbackFormSchema(prefill, toolNames) } };
}

/** A client that cannot show a form (the stateless 2025 leg, or no elicitation capability): say how to finish, store nothing. */
function noFormAnswer(feedbackUrl: string, era: 'modern' | 'legacy'): ToolOutcome {
  return toolError(
    `Feedback needs the user's own words through a form, and ${noFormReason(era)}, so nothing was sent or stored. ` +
      `The user can send it on the web at ${feedbackUrl} (signed in), or the client can connect with MCP protocol 2026-07-28, declare the elicitation capability and call submitServiceFeedback again.`,
    {
      success: false,
      submitted: false,
      feedbackUrl,
      error: { code: 'elicitation_unavailable', requiredProtocolVersion: '2026-07-28', requiredCapability: 'elicitation', finishAt: feedbackUrl },
    },
  );
}
