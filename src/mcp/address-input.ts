// The address argument of the tools that take one street address: the same bounds and the same
// words for a refusal as the core's parser and the REST API ("The address is N characters long; ...").
import { z } from 'zod';
import { addressTooLongMessage, MAX_ADDRESS_CHARS } from '../geocoder/parse-address.ts';

export function addressInput(description: string) {
  return z
    .string()
    .min(1, 'The address is empty.')
    .max(MAX_ADDRESS_CHARS, { error: (issue) => addressTooLongMessage(String(issue.input).length) })
    .describe(description);
}
