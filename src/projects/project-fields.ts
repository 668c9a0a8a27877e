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

/**
 * What is planned on a site, as the project's owner states it (the spec's "typology", shown on the
 * public map): the map listing's derived values plus the other kinds a consultant works on.
 */
export const PROJECT_TYPOLOGIES = [
  'single_family',
  'two_family',
  'townhouse',
  'multi_family',
  'mixed_use',
  'commercial',
  'industrial',
  'institutional',
] as const;
export type ProjectTypology = (typeof PROJECT_TYPOLOGIES)[number];

/** Each typology in words, for every surface that shows one to a person (web, PDF, CLI). */
export const TYPOLOGY_WORDS: Record<ProjectTypology | 'unknown', string> = {
  single_family: 'Single-family',
  two_family: 'Two-family',
  townhouse: 'Townhouses',
  multi_family: 'Multi-family',
  mixed_use: 'Mixed-use',
  commercial: 'Commercial',
  industrial: 'Industrial',
  institutional: 'Institutional',
  unknown: 'Not stated',
};
export const typologyWords = (t: string | null): string => TYPOLOGY_WORDS[(t ?? 'unknown') as ProjectTypology] ?? t ?? TYPOLOGY_WORDS.unknown;

export function checkTypology(value: string): ProjectTypology {
  if ((PROJECT_TYPOLOGIES as readonly string[]).includes(value)) return value as ProjectTypology;
  throw badInput(`typology "${value}" is not accepted. Accepted values: ${PROJECT_TYPOLOGIES.join(', ')} (an empty string clears it).`, {
    field: 'typology',
    acceptedValues: [...PROJECT_TYPOLOGIES],
  });
}
