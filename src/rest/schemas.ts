// The /api/v1 shapes as zod schemas: the routes validate requests with them, and the OpenAPI 3.1
// document (openapi.ts) is generated from the same objects, so the two cannot drift. Snapshot
// members are open objects: new members may be added (additive changes only within v1), so clients
// ignore members they do not know.
import { z } from 'zod';
import { extendZodWithOpenApi } from '@hono/zod-openapi';
import { COVERAGE_STATUSES, VALUE_STATUSES } from '../core/statuses.ts';
import { KEY_NAME_MAX } from '../billing/api-keys.ts';
import { MAX_PACKS } from '../billing/payments.ts';
import { addressTooLongMessage, MAX_ADDRESS_CHARS } from '../geocoder/parse-address.ts';

// .openapi(): the OpenAPI generator (@hono/zod-openapi) refers to a schema by the id it carries.
extendZodWithOpenApi(z);

export const registry = z.registry<{ id: string }>();
/**
 * A named schema: a component of the document. A request or response schema carries its id for the
 * generator (.openapi(id) returns a copy that carries it; the copy is the schema every route validates
 * with); a query schema is written out as parameters instead.
 */
const named = <T extends z.ZodType>(id: string, schema: T): T => {
  const s = id.endsWith('Query') ? schema : (schema as unknown as { openapi(id: string): T }).openapi(id);
  registry.add(s, { id });
  return s;
};

// ---- requests --------------------------------------------------------------------------------------

const address = z
  .string()
  .trim()
  .min(1, 'address is empty')
  .max(MAX_ADDRESS_CHARS, { error: (issue) => addressTooLongMessage(String(issue.input).length) })
  .describe('One street address in Canada or the US, e.g. "57 Inman St, Cambridge, MA".');

const include = z
  .enum(['sources'])
  .optional()
  .describe(
    "sources: every source of the place in full (vintage, licence, attribution, URL) in the snapshot's sources, instead of names and the catalogue link.",
  );
/** A stated district, building type or condition: plain words, no control characters (a NUL was answered as if stated). */
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const district = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .regex(NO_CONTROL, 'district must not hold control characters (NUL, tab, newline, ...)')
  .optional()
  .describe(
    "Only for a place without a zoning map (Somerville, MA): the lot's zoning district as the City's official map shows it, e.g. NR. Without it such an answer gives the lot and `districtChoice` (free). Ignored, with a warning, where the district is read from a zoning map.",
  );
const buildingType = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .regex(NO_CONTROL, 'buildingType must not hold control characters (NUL, tab, newline, ...)')
  .optional()
  .describe('With district, where the district zones by building type, e.g. "Detached House".');
const conditionsText =
  'With buildingType: the conditions its table states values under, which siteline cannot read from its data (Somerville: driveway access, alley, what the lot abuts, lot in a sequence), each "Name=Value" or the value alone, as `districtChoice` lists them. Never guessed: without one those values stay conditional_unresolved.';
const conditionsQuery = z
  .string()
  .trim()
  .min(1)
  .max(10 * 160)
  .regex(NO_CONTROL, 'conditions must not hold control characters (NUL, tab, newline, ...)')
  .optional()
  .describe(`${conditionsText} In a query, separated by ";": \`Driveway access=Front Driveway Access\`.`);
const conditionsBody = z
  .array(z.string().trim().min(1).max(160).regex(NO_CONTROL, 'a condition must not hold control characters (NUL, tab, newline, ...)'))
  .max(10)
  .optional()
  .describe(`${conditionsText} E.g. ["Driveway access=Front Driveway Access"].`);
/** The lot the caller picks over the address's own match (src/snapshot/picked-lot.ts; issue 49, item 6). */
const lotId = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[\x20-\x7e]+$/, 'lotId is visible ASCII characters, as the snapshot shows lot.parcelExternalId')
  .optional()
  .describe(
    "A lot of the address's place, by the id the snapshot gives as lot.parcelExternalId (the assessor's id): the answer is for that lot, with address.matchType lot_id and a first warning naming the lot the address alone matched. For a weak match (confidence below 0.8). An id the place does not hold is a 400.",
  );
export const SiteCheckQuery = named('SiteCheckQuery', z.object({ address, include, district, buildingType, conditions: conditionsQuery, lotId }));
export const SiteCheckBody = named('SiteCheckRequest', z.strictObject({ address, include, district, buildingType, conditions: conditionsBody, lotId }));

/** A coordinate in a query: text coerced to a number (the document says number, as the query's value is read as one). */
const coordinate = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`)
    .openapi({ type: 'number', minimum: min, maximum: max });

export const CoverageQuery = named(
  'CoverageQuery',
  z
    .object({
      address: address.optional(),
      city: z.string().trim().min(1).max(100).optional().describe('A city name, e.g. "Cambridge" (add region to pick one of several).'),
      region: z.string().trim().min(1).max(60).optional().describe('State or province, e.g. "MA" (with city).'),
      geoDivisionId: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .optional()
        .describe('A place by its id, e.g. "US-MA:cambridge" (what an ambiguous answer\'s candidates carry).'),
      lat: coordinate('lat', -90, 90).optional().describe('Latitude in decimal degrees (with lng).'),
      lng: coordinate('lng', -180, 180).optional().describe('Longitude in decimal degrees (with lat).'),
      district: z
        .string()
        .trim()
        .min(1)
        .max(40)
        .optional()
        .describe(
          'With city or geoDivisionId: a district code of the place (e.g. "NR"); the answer then carries its rules in full, each cited value with its quote.',
        ),
      changesSince: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'changesSince is a date, YYYY-MM-DD')
        .optional()
        .describe(
          'With city or geoDivisionId: the change log of every import of the place since this date (YYYY-MM-DD): lots added or removed, lots whose zone or area changed, districts whose rules changed, and the vintage of each layer.',
        ),
      changesBy: z
        .enum(['import', 'vintage'])
        .optional()
        .describe(
          'With changesSince: which date it reads: import (the day siteline imported the files, the default) or vintage (the date the town gave its files).',
        ),
      changesPage: z.coerce.number().int().min(1).max(100000).optional().describe('With changesSince: the page of changeItems (1-based, default 1).'),
      changesPageSize: z.coerce.number().int().min(1).max(1000).optional().describe('With changesSince: changeItems per page (default 100, at most 1000).'),
    })
    .refine(
      (q) =>
        [q.address !== undefined, q.city !== undefined, q.geoDivisionId !== undefined, q.lat !== undefined || q.lng !== undefined].filter(Boolean).length === 1,
      {
        message: 'give exactly one of: address, city (optionally with region), geoDivisionId, or lat and lng',
      },
    )
    .refine((q) => (q.lat === undefined) === (q.lng === undefined), { message: 'a point needs both lat and lng' })
    .refine((q) => q.region === undefined || q.city !== undefined, { message: 'region goes with city' })
    .refine((q) => q.district === undefined || q.city !== undefined || q.geoDivisionId !== undefined, { message: 'district goes with city or geoDivisionId' })
    .refine((q) => q.changesSince === undefined || q.city !== undefined || q.geoDivisionId !== undefined, {
      message: 'changesSince goes with city or geoDivisionId',
    })
    .refine((q) => q.changesSince !== undefined || (q.changesBy === undefined && q.changesPage === undefined && q.changesPageSize === undefined), {
      message: 'changesBy, changesPage and changesPageSize go with changesSince',
    }),
);

export const KeyCreateBody = named(
  'ApiKeyCreateRequest',
  z.strictObject({
    name: z
      .string()
      .trim()
      .min(1, 'name is empty')
      .max(KEY_NAME_MAX)
      // A NUL cannot be stored in a text column (it was a 500); no label needs a control character.
      .regex(/^[^\u0000-\u001f\u007f]*$/, 'name must not hold control characters (NUL, tab, newline, ...)')
      .describe('A label for the key, e.g. "production".'),
  }),
);

export const CheckoutBody = named('CheckoutRequest', z.strictObject({ packs: z.number().int().min(1).max(MAX_PACKS) }));

// ---- responses -------------------------------------------------------------------------------------

const coverageStatus = z.enum(COVERAGE_STATUSES);
const valueStatus = z.enum(VALUE_STATUSES);
const placeRef = z.looseObject({ name: z.string(), region: z.string(), country: z.string() });

export const Coverage = named(
  'Coverage',
  z.looseObject({
    status: coverageStatus,
    eligibilityKnown: z.boolean().describe('False: eligibility could not be determined at all (differs from "determined not covered").'),
    message: z.string(),
    geoDivisionId: z.string().optional(),
    place: placeRef.optional(),
    retryAfterSeconds: z
      .number()
      .int()
      .optional()
      .describe("Only while the place is still loading at the server's start (live_unavailable): ask again after this many seconds."),
  }),
);

const citation = z
  .looseObject({
    document: z.string().describe("The held document's id (its place's manifest declares it with its sha256, edition and licence)."),
    documentTitle: z.string(),
    section: z.string().describe('The section as the document numbers it.'),
    quote: z
      .string()
      .describe('The bylaw\'s words, verbatim ("…" marks words left out), verified by machine against the held text; the value as written is in them.'),
    sourceUrl: z.string().describe('Where the document is published.'),
    date: z.string().describe('The edition of the held text.'),
    href: z.string().describe("This service's page showing the quote highlighted in its section (a path on this service)."),
    sectionUuid: z.string().optional(),
  })
  .describe("Where a cited value's words are.");
const ids = (what: string) => z.array(z.string()).optional().describe(`Ids in the snapshot's ${what}.`);
/** What a value or a use names by id: its citation, shared notes and condition, and the sources its texts name. */
const provenanceRefs = {
  citation: z.string().optional().describe("Id in the snapshot's citations."),
  condition: z.string().optional(),
  conditionNote: z.string().optional().describe("Id in the snapshot's notes, when the condition is shared (then condition is absent)."),
  note: z.string().optional(),
  notes: ids('notes (texts several values share)'),
};

export const SourcedValue = named(
  'SourcedValue',
  z.looseObject({
    value: z.union([z.number(), z.string(), z.boolean(), z.null()]).describe('Null means nothing without its status.'),
    status: valueStatus,
    unit: z.string().optional().describe('The unit of a value that is there (a null has none).'),
    ...provenanceRefs,
    inputs: z.array(z.string()).optional(),
    statedNoLimit: z
      .string()
      .optional()
      .describe(
        "The source (an id in the snapshot's sources, e.g. S1) that states there is no limit, on a null value no bylaw text verifies (status unverified_default). Indicative: the analysis does not compute on it.",
      ),
  }),
);

const measure = z.looseObject({
  value: z.number().nullable(),
  unit: z.string(),
  basis: z.enum(['parcel_geometry', 'missing']),
  status: z.literal('missing').optional(),
  note: z.string().optional(),
});
const zoneShare = z.looseObject({ code: z.string(), name: z.string().nullable(), share: z.number() });

export const Snapshot = named(
  'Snapshot',
  z.looseObject({
    answered: z.boolean().describe('False when the address is outside coverage (free of charge); the coverage block says why.'),
    coverage: Coverage,
    address: z
      .looseObject({
        input: z.string(),
        parsed: z.looseObject({
          number: z.string().nullable(),
          street: z.string().nullable(),
          unit: z.string().nullable(),
          city: z.string().nullable(),
          region: z.string().nullable(),
          postcode: z.string().nullable(),
          country: z.enum(['US', 'CA']).nullable(),
        }),
        matchType: z.enum(['address_table', 'assessor_table', 'street_interpolation', 'lot_id']),
        confidence: z.number(),
        matchedAddress: z.string(),
        warnings: z.array(z.string()),
      })
      .optional(),
    lot: z
      .looseObject({
        parcelExternalId: z.string(),
        latitude: z.number(),
        longitude: z.number(),
        areaM2: z.number(),
        areaSqft: z.number(),
        frontageFt: measure,
        depthFt: measure,
        cornerLot: z.boolean().nullable(),
        cornerLotNote: z
          .string()
          .optional()
          .describe('Present when the lot faces two streets but is not a corner lot: why, with the rule (docs/lot-metrics.md).'),
        frontStreet: z.string().nullable(),
        source: z.string().describe("Id in the snapshot's sources (the parcel layer)."),
      })
      .optional(),
    zones: z
      .looseObject({
        primary: z.string().nullable().describe('The code of the primary district, one of districts.'),
        districts: z.array(zoneShare),
        splitLot: z.boolean(),
        overlays: z.array(zoneShare.extend({ governingSection: z.string().nullable() })),
      })
      .optional(),
    permittedUses: z
      .array(
        z.looseObject({
          use: z.string(),
          permission: z.enum(['as_of_right', 'special_permit', 'conditional', 'prohibited', 'unknown']),
          status: valueStatus,
          ...provenanceRefs,
        }),
      )
      .optional(),
    envelope: z.record(z.string(), SourcedValue).optional(),
    sources: z
      .record(z.string(), z.string())
      .describe(
        "The sources the answer names, id -> a short label: the parcel layer and the documents the notes name (S1, ...). In full (name, vintage, licence, URL; every data layer and rules, the bylaw) in the place's catalogue, sourceCatalogue.",
      ),
    sourceCatalogue: z
      .looseObject({
        url: z.string().describe("The place's sources in full, on this server; versioned by content (?v=)."),
        sources: z
          .record(
            z.string(),
            z.looseObject({
              label: z.string(),
              name: z.string(),
              vintage: z.string(),
              licence: z.string().optional(),
              attribution: z.string().optional(),
              url: z.string().optional(),
            }),
          )
          .optional()
          .describe('Every source of the place in full, by id: present with include=sources.'),
      })
      .optional(),
    attribution: z.array(z.string()).optional().describe("Statements the data's licences require (e.g. OGL-BC), each once; absent when none does."),
    citations: z.record(z.string(), citation).optional().describe('Every citation once, by id (c1, ...).'),
    notes: z.record(z.string(), z.string()).optional().describe('Texts several values share, once, by id (n1, ...).'),
    suggestions: z.array(z.string()).optional(),
    generatedAt: z.string(),
  }),
);

const ruleValueView = z.looseObject({
  standard: z.string(),
  unit: z.string(),
  status: valueStatus,
  value: z.number().nullable().describe('Null means nothing without its status.'),
  tiers: z
    .array(z.looseObject({ when: z.array(z.string()), values: z.array(z.string()) }))
    .optional()
    .describe('Conditional values as the bylaw states them.'),
  condition: z.string().optional(),
  note: z.string().optional(),
  citation: citation.optional(),
});
export const DistrictRules = named(
  'DistrictRules',
  z.looseObject({
    place: z.string(),
    code: z.string(),
    name: z.string(),
    governedBy: z.string().optional(),
    note: z.string().optional(),
    standards: z.array(ruleValueView),
    buildingTypes: z
      .array(
        z.looseObject({
          name: z.string(),
          section: z.string(),
          allowed: z.string().optional(),
          standards: z.array(ruleValueView),
          notExtracted: z.array(z.looseObject({ standard: z.string(), reason: z.string() })),
        }),
      )
      .describe('Where the place zones by building type: each type the district allows, with its own table.'),
    uses: z.array(
      z.looseObject({
        use: z.string(),
        permission: z.string(),
        status: valueStatus,
        condition: z.string().optional(),
        note: z.string().optional(),
        citation: citation.optional(),
      }),
    ),
    citedValues: z.number().int().describe('Values and uses of the district cited from a held document, each verified.'),
  }),
);

export const CoverageAnswer = named(
  'CoverageAnswer',
  z.strictObject({
    query: z.string().describe('The question as understood.'),
    coverage: Coverage.extend({
      status: z.enum([...COVERAGE_STATUSES, 'ambiguous']).describe('ambiguous: a city name matched several places (see candidates).'),
    }),
    placeStatus: z.string().nullable().describe("The place's catalogue status (live, planned_not_live, ...), null when no catalogued place matched."),
    candidates: z.array(placeRef).optional().describe('When a city name matches several places: add region.'),
    rules: DistrictRules.optional().describe('The district asked for (query district), in full.'),
    changes: z
      .array(
        z.looseObject({
          vintageId: z.number().int(),
          importedAt: z.string(),
          layers: z
            .array(z.looseObject({ id: z.string(), name: z.string(), file: z.string(), vintage: z.string() }))
            .describe('Each layer of the import with its vintage.'),
          changes: z
            .looseObject({
              vintage: z.string(),
              lots: z
                .looseObject({ before: z.number().int(), after: z.number().int() })
                .describe('added, removed, zoneChanged, areaChanged: each a count with up to 25 examples.'),
              districts: z.looseObject({ added: z.array(z.string()), removed: z.array(z.string()), rulesChanged: z.array(z.string()) }),
            })
            .nullable()
            .describe('The change log against the previous import; null for an import with none recorded (the first).'),
        }),
      )
      .optional()
      .describe('With changesSince: the imports of the place since that date, newest first.'),
    changeItems: z
      .strictObject({
        total: z.number().int(),
        page: z.number().int(),
        pageSize: z.number().int(),
        items: z.array(
          z.strictObject({
            vintageId: z.number().int(),
            vintage: z.string().describe("The town's date for the files that made the change."),
            importedAt: z.string(),
            kind: z.enum(['lot_added', 'lot_removed', 'lot_rezoned', 'lot_area_changed', 'lot_split', 'lot_merged', 'address_added', 'address_removed']),
            subject: z.string().describe('The lot id, or the address (number, street, unit).'),
            detail: z.record(z.string(), z.unknown()).describe('lot_rezoned: from, to; lot_split: into; lot_merged: from; lot_area_changed: fromM2, toM2.'),
          }),
        ),
      })
      .optional()
      .describe('With changesSince: every lot and address change of those imports (complete, paged), newest import first.'),
  }),
);

const ledgerEntry = z.strictObject({
  kind: z.enum(['purchase', 'grant', 'spend', 'refund', 'clawback']),
  amount: z.number().int().describe('Credits: negative for a spend, and for a clawback (credit taken back after a refund or dispute of its purchase).'),
  reference: z.string(),
  keyId: z.string().nullable(),
  at: z.string(),
});

export const UsageAnswer = named(
  'Usage',
  z.strictObject({
    balance: z
      .number()
      .int()
      .describe('Credits left. Below zero when a refund or dispute took back credit already spent: paid calls answer 402 until a purchase or grant covers it.'),
    recent: z.array(ledgerEntry).describe('The 20 latest ledger entries, newest first.'),
    perDay: z
      .array(z.strictObject({ day: z.string(), charges: z.number().int(), credits: z.number().int() }))
      .describe('Charges per UTC day over the last 30 days.'),
    purchasing: z.strictObject({ enabled: z.boolean(), how: z.string() }),
    reportExports: z
      .strictObject({
        meter: z.literal('records.exports'),
        period: z.string().describe('The calendar month (UTC) counted, YYYY-MM.'),
        used: z.number().int().min(0),
        allowance: z.number().int().min(0),
        remaining: z.number().int().min(0),
        resetsAt: z.string().describe('When the allowance renews (the first of next month, UTC).'),
      })
      .describe(
        "The account's project report export meter: each confirmed PDF export of a project report (from the project page, or by an agent) counts; not paid with credit.",
      ),
  }),
);

export const ApiKey = named(
  'ApiKey',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to tell keys apart.'),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable().describe('To the minute.'),
    revokedAt: z.string().nullable(),
  }),
);

export const ApiKeyCreated = named('ApiKeyCreated', ApiKey.extend({ key: z.string().describe('The key itself: shown this once, never again.') }));
export const ApiKeyList = named('ApiKeyList', z.strictObject({ keys: z.array(ApiKey) }));

export const Problem = named(
  'Problem',
  z.looseObject({
    type: z.string().describe('A stable URI naming the kind of problem.'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe('The problem type as a short stable word.'),
    requestId: z.string(),
    errors: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
  }),
);

/** Readable issues of a failed parse: "address: address is empty"; an issue about the whole input is the query's or the body's. */
export function issueList(error: z.ZodError, whole: '(query)' | '(body)' = '(body)'): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.') || whole, message: i.message }));
}
