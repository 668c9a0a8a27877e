// The project fields a caller may set, and their validation: the lifecycle vocabulary and the
// `<system>:<id>` form of externalRef. Errors list what is accepted, so a model can correct itself.
import { badInput } from '../core/errors.ts';

/** Where a site stands, in the order a project usually moves (any value may follow any other). */
export const LIFECYCLE_STATUSES = [
  'prospect',
  'due_diligence',
  'entitlement',
  'design',
  'permitting',
  'construction',
  'completed',
  'on_hold',
  'abandoned',
] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];
export const DEFAULT_LIFECYCLE_STATUS: LifecycleStatus = 'prospect';

export function checkLifecycleStatus(value: string): LifecycleStatus {
  if ((LIFECYCLE_STATUSES as readonly string[]).includes(value)) return value as LifecycleStatus;
  throw badInput(`lifecycleStatus "${value}" is not accepted. Accepted values: ${LIFECYCLE_STATUSES.join(', ')}.`, {
    field: 'lifecycleStatus',
    acceptedValues: [...LIFECYCLE_STATUSES],
  });
}

/** `<system>:<id>`: a short system name (letters, digits, . _ -), a colon, then the id in that system. */
const EXTERNAL_REF_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,39}:[^\s]{1,200}$/;

export function checkExternalRef(value: string): string {
  if (!EXTERNAL_REF_PATTERN.test(value))
    throw badInput(
      `externalRef "${value}" is not of the form <system>:<id> (a system name of letters, digits, ".", "_" or "-", a colon, then the id without spaces), e.g. "procore:12345".`,
      { field: 'externalRef' },
    );
  return value;
}

/** The longest project name, in characters (after spaces are collapsed). */
export const MAX_NAME_CHARS = 200;

export function checkName(value: string): string {
  const name = value.trim().replace(/\s+/g, ' ');
  if (!name) throw badInput('name must not be empty.', { field: 'name' });
  if (name.length > MAX_NAME_CHARS) throw badInput(`name is longer than ${MAX_NAME_CHARS} characters.`, { field: 'name' });
  return name;
}
