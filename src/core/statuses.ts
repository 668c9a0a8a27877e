// The one place that defines what every status means. Coverage statuses explain whether an address
// can be answered at all; value statuses travel with each envelope value and permitted use.

export const COVERAGE_STATUSES = ['live', 'live_unavailable', 'planned_not_live', 'geo_division_uncatalogued', 'unseeded_place', 'geocode_failed'] as const;

export const VALUE_STATUSES = [
  'cited',
  'cited_conditional',
  'conditional_unresolved',
  'no_limit_in_bylaw',
  'not_extracted',
  'site_specific_schedule',
  'unverified_default',
  'derived_from_cited',
  'defaulted',
  'missing',
] as const;

export type CoverageStatus = (typeof COVERAGE_STATUSES)[number];
export type ValueStatus = (typeof VALUE_STATUSES)[number];
export type Status = CoverageStatus | ValueStatus;

/** All 16 statuses in the spec's order. */
export const ALL_STATUSES: readonly Status[] = [
  'live',
  'live_unavailable',
  'planned_not_live',
  'geo_division_uncatalogued',
  'unseeded_place',
  'geocode_failed',
  'cited',
  'cited_conditional',
  'conditional_unresolved',
  'no_limit_in_bylaw',
  'not_extracted',
  'site_specific_schedule',
  'unverified_default',
  'derived_from_cited',
  'defaulted',
  'missing',
];

export interface StatusMeaning {
  status: Status;
  kind: 'coverage' | 'value';
  meaning: string;
  /** How a client should present a null value carrying this status. */
  nullMeans: string;
  /** True when a person may rely on the value as stated in the bylaw (with its citation). */
  authoritative: boolean;
  /** True when the status says the value is unknown: never show it as "no limit" or as zero. */
  unknown: boolean;
}

const m = (status: Status, kind: 'coverage' | 'value', meaning: string, nullMeans: string, authoritative: boolean, unknown: boolean): StatusMeaning => ({
  status,
  kind,
  meaning,
  nullMeans,
  authoritative,
  unknown,
});

export const STATUS_MEANINGS: Readonly<Record<Status, StatusMeaning>> = {
  live: m(
    'live',
    'coverage',
    'The place is covered: its lots, zoning and rules are loaded and the address can be answered.',
    'Not applicable: live is a coverage status.',
    false,
    false,
  ),
  live_unavailable: m(
    'live_unavailable',
    'coverage',
    'The place is covered, but its data is not loaded on this server (not imported yet, or the import failed); eligibility is known. Waiting does not help: the operator imports it (`siteline data import <place> --from DIR`, or SITELINE_SOURCE_DIR=DIR and a restart).',
    'Not applicable: live_unavailable is a coverage status.',
    false,
    true,
  ),
  planned_not_live: m(
    'planned_not_live',
    'coverage',
    'The place is catalogued and planned, but not live: some layers (such as zoning) may be queryable, but addresses cannot be answered yet.',
    'Not applicable: planned_not_live is a coverage status.',
    false,
    true,
  ),
  geo_division_uncatalogued: m(
    'geo_division_uncatalogued',
    'coverage',
    'The service could not place the address in any state, province or city it knows, so eligibility could not be determined at all.',
    'Not applicable: geo_division_uncatalogued is a coverage status.',
    false,
    true,
  ),
  unseeded_place: m(
    'unseeded_place',
    'coverage',
    'The address is in a city the service knows of, but no data has been seeded for it: the place is not covered.',
    'Not applicable: unseeded_place is a coverage status.',
    false,
    true,
  ),
  geocode_failed: m(
    'geocode_failed',
    'coverage',
    'The place is covered, but the address could not be matched to a lot with confidence. No city or street centroid is ever returned in its place.',
    'Not applicable: geocode_failed is a coverage status.',
    false,
    true,
  ),
  cited: m(
    'cited',
    'value',
    "Extracted from the bylaw text or table itself; the citation gives the document, the section and the bylaw's words, which were found by machine in a copy of the document the service holds (its href shows them in their section).",
    'A cited null does not occur: a cited value always has a value.',
    true,
    false,
  ),
  cited_conditional: m(
    'cited_conditional',
    'value',
    'Resolved from a conditional rule in the bylaw whose condition applies to this site; the condition is stated with the value.',
    'A cited_conditional null does not occur.',
    true,
    false,
  ),
  conditional_unresolved: m(
    'conditional_unresolved',
    'value',
    'The bylaw sets conditional tiers and none could be resolved for this site with the data at hand. Unknown, not unlimited.',
    'Unknown: the limit depends on conditions that could not be resolved. Not "no limit", not zero.',
    false,
    true,
  ),
  no_limit_in_bylaw: m(
    'no_limit_in_bylaw',
    'value',
    'The bylaw sets no zone-level limit for this standard. A real answer, read from the bylaw.',
    'No zone-level limit: the bylaw sets none (other rules, such as other standards or overlays, may still bind).',
    true,
    false,
  ),
  not_extracted: m(
    'not_extracted',
    'value',
    'The value was never extracted for this zone. Unknown.',
    'Unknown: the value exists in the bylaw or may, but was not extracted. Never "no limit", never zero.',
    false,
    true,
  ),
  site_specific_schedule: m(
    'site_specific_schedule',
    'value',
    'The district is governed by its own schedule (a special district article, a planned development ordinance or a site-specific bylaw section); zone-level tables do not apply and the value was not extracted from that schedule.',
    'Unknown here: read the named site-specific schedule. Never "no limit", never zero.',
    false,
    true,
  ),
  unverified_default: m(
    'unverified_default',
    'value',
    'A cached zoning value with no citation to the bylaw itself (for example from a secondary transcription, a city news release, a feed that encodes the ordinance, or the ordinance read where the service holds no copy of it to verify against). Indicative only.',
    'Unknown: no verified value.',
    false,
    false,
  ),
  derived_from_cited: m(
    'derived_from_cited',
    'value',
    'Computed by the service from bylaw values that are all cited (cited, cited_conditional or no_limit_in_bylaw) and from lot measurements, e.g. max floor area = FAR x lot area. The inputs are named; any condition of an input travels with the value.',
    "A derived null does not occur: a derivation with an unknown input takes that input's status.",
    true,
    false,
  ),
  defaulted: m(
    'defaulted',
    'value',
    'Computed with a documented service assumption in place of a fact the service does not have (for example an interior lot when whether the lot is a corner lot is unknown). Indicative only; the assumption is named in the note.',
    'Unknown: the service assumed a default and has none here.',
    false,
    false,
  ),
  missing: m(
    'missing',
    'value',
    'The input data this value needs is absent for this lot (for example no street edge to measure frontage from). Not a statement about the bylaw.',
    'Unknown: the source data for this lot lacks what the value needs.',
    false,
    true,
  ),
};

export function isStatus(s: unknown): s is Status {
  return typeof s === 'string' && (ALL_STATUSES as readonly string[]).includes(s);
}

export function isValueStatus(s: unknown): s is ValueStatus {
  return typeof s === 'string' && (VALUE_STATUSES as readonly string[]).includes(s);
}

/**
 * Value statuses from strongest to weakest. A derived value takes the weakest status among its
 * inputs (unless every input is cited, when it is derived_from_cited).
 */
export const VALUE_STATUS_STRENGTH: readonly ValueStatus[] = [
  'cited',
  'no_limit_in_bylaw',
  'derived_from_cited',
  'cited_conditional',
  'unverified_default',
  'defaulted',
  'conditional_unresolved',
  'missing',
  'not_extracted',
  'site_specific_schedule',
];

/** The weakest of the given statuses (cited for an empty list). */
export function weakestStatus(statuses: readonly ValueStatus[]): ValueStatus {
  let worst: ValueStatus = 'cited';
  for (const s of statuses) if (VALUE_STATUS_STRENGTH.indexOf(s) > VALUE_STATUS_STRENGTH.indexOf(worst)) worst = s;
  return worst;
}

/**
 * The rule for unknown values: a value whose status is one of these (not_extracted,
 * site_specific_schedule, conditional_unresolved, missing) is unknown. It carries value null and is
 * never reported as "no limit" (that is no_limit_in_bylaw, a real answer read from the bylaw) and
 * never as zero. The envelope's invariant check (src/core/envelope.ts) enforces it.
 */
export const UNKNOWN_VALUE_STATUSES: readonly ValueStatus[] = VALUE_STATUSES.filter((s) => STATUS_MEANINGS[s].unknown);
