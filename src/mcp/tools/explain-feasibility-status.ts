// explainFeasibilityStatus: a static lookup over the 16 statuses (no database, geocoder or model).
import { z } from 'zod';
import { ALL_STATUSES, STATUS_MEANINGS, isStatus } from '../../core/statuses.ts';
import { defineTool, toolResult } from '../tool-definition.ts';

export const explainFeasibilityStatus = defineTool({
  name: 'explainFeasibilityStatus',
  title: 'Explain a feasibility status',
  description:
    'Explains one provenance or coverage status exactly as it appears in a getFeasibilitySnapshot result ' +
    '(for example "not_extracted" or "no_limit_in_bylaw"): what it means, what a null value carrying it means, ' +
    'whether a person may rely on the value, and whether it must be treated as unknown. Copy the status verbatim. ' +
    'Static lookup: no database, geocoder or model call. An unrecognised status returns the list of accepted statuses.',
  // The wire schema advertises the 16-value enum; validation accepts any string so an unknown
  // status gets the accepted list back instead of a validation failure (spec: "no failure").
  input: z.object({
    status: z.string().meta({ enum: [...ALL_STATUSES], description: 'A status copied verbatim from a feasibility result.' }),
  }),
  purpose: 'What one status (e.g. not_extracted, no_limit_in_bylaw) means and whether a value carrying it may be relied on.',
  output: z.looseObject({
    known: z.boolean().describe('false: not a status this service uses; acceptedStatuses lists them.'),
    status: z.string(),
    kind: z.string().optional(),
    meaning: z.string().optional(),
    nullMeans: z.string().optional(),
    unknown: z.boolean().optional().describe('True: treat the value as unknown, never as "no limit".'),
    acceptedStatuses: z.array(z.string()).optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'public',
  async handler({ status }) {
    const wanted = status.trim();
    if (!isStatus(wanted)) {
      return toolResult(
        { known: false, status: wanted, acceptedStatuses: [...ALL_STATUSES] },
        `"${wanted}" is not a status this service uses. Accepted statuses: ${ALL_STATUSES.join(', ')}. Copy the status verbatim from the result and call again.`,
      );
    }
    const m = STATUS_MEANINGS[wanted];
    const caution = m.unknown ? ' Treat the value as unknown: never report it as "no limit" or as zero.' : '';
    return toolResult({ known: true, ...m }, `${m.status} (${m.kind} status): ${m.meaning} A null value with this status: ${m.nullMeans}${caution}`);
  },
});
