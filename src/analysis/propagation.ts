// THE propagation table: the status of every value the feasibility analysis derives, from the
// statuses of its inputs. One function, documented in docs/projects.md; nothing else decides.
//
//   1. any input unknown (not_extracted, site_specific_schedule, conditional_unresolved, missing)
//        -> value null, status = the weakest such input. Unknown: never zero, never "no limit".
//   2. the value is a limit and its binding input says no_limit_in_bylaw -> value null, no_limit_in_bylaw.
//   3. any input unverified_default or defaulted -> the weakest of them: indicative only.
//   4. every input cited, cited_conditional, derived_from_cited or no_limit_in_bylaw -> derived_from_cited.
import { UNKNOWN_VALUE_STATUSES, weakestStatus, type ValueStatus } from '../core/statuses.ts';

const INDICATIVE_STATUSES: readonly ValueStatus[] = ['unverified_default', 'defaulted'];

export type Propagated = { known: false; status: ValueStatus } | { known: true; status: ValueStatus };

/** The status of a value derived from inputs with these statuses (rules 1, 3, 4; rule 2 is the caller's, per formula). */
export function propagate(inputs: readonly ValueStatus[]): Propagated {
  const unknown = inputs.filter((s) => UNKNOWN_VALUE_STATUSES.includes(s));
  if (unknown.length) return { known: false, status: weakestStatus(unknown) };
  const indicative = inputs.filter((s) => INDICATIVE_STATUSES.includes(s));
  if (indicative.length) return { known: true, status: weakestStatus(indicative) };
  return { known: true, status: 'derived_from_cited' };
}
