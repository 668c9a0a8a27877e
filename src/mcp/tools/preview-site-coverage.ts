// previewSiteCoverage: a redacted, lot-level preview for one address (no zoning values).
import { z } from 'zod';
import { addressInput } from '../address-input.ts';
import { previewSiteCoverage as preview } from '../../snapshot/preview.ts';
import { defineTool, toolResult } from '../tool-definition.ts';

export const previewSiteCoverage = defineTool({
  name: 'previewSiteCoverage',
  title: 'Preview site coverage',
  description:
    'Checks one US or Canadian street address without sign-in: whether the service covers it, why not when it does not ' +
    '(coverage.status and message), whether a lot and a zoning district were found, and the match type and confidence. ' +
    'Returns no zoning values, parcel id or coordinates: call getFeasibilitySnapshot (sign-in required) for those. ' +
    'Include the city and state or province, e.g. "57 Inman St, Cambridge, MA".',
  input: z.object({
    address: addressInput('One street address in Canada or the US, with city and state or province.'),
  }),
  purpose: 'Whether one address is covered and whether a lot and zone were found, without sign-in (no zoning values).',
  output: z.looseObject({
    covered: z.boolean(),
    coverage: z.looseObject({ status: z.string(), eligibilityKnown: z.boolean(), message: z.string() }),
    zoneFound: z.boolean().optional(),
    next: z.string().optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'public',
  async handler({ address }, call) {
    const p = await preview(call.ctx, address);
    const found = p.covered ? `A lot was found${p.zoneFound ? ' with its zoning district' : ' (no zoning district found)'}.` : '';
    return toolResult({ ...p }, [p.coverage.message, found, p.next].filter(Boolean).join(' '));
  },
});
