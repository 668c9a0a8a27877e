// The shape of a place's rules file (places/<slug>/rules.json), validated with zod at load time.
// A rules file is written by us, per district; every value carries the status that says where it
// came from, and the schema refuses the combinations that would overstate a value.
import { z } from 'zod';
import { VALUE_STATUSES } from './statuses.ts';

/** Dimensional standards a rules file may state, with the unit each one is stated in. */
export const STANDARD_UNITS = {
  maxHeightFt: 'ft',
  maxHeightStoreys: 'storeys',
  maxFar: 'ratio',
  minLotAreaSqft: 'sqft',
  minLotAreaPerUnitSqft: 'sqft/unit',
  minLotWidthFt: 'ft',
  minLotDepthFt: 'ft',
  minFrontYardFt: 'ft',
  minSideYardFt: 'ft',
  minStreetSideYardFt: 'ft',
  minRearYardFt: 'ft',
  maxLotCoveragePct: 'percent',
  minOpenSpacePct: 'percent',
  maxDensityUnitsPerAcre: 'units/acre',
  maxUnitsPerLot: 'units',
} as const;

export type StandardKey = keyof typeof STANDARD_UNITS;
export const STANDARD_KEYS = Object.keys(STANDARD_UNITS) as StandardKey[];

/**
 * Standards a building type's table may state besides the envelope's (a town that zones by building
 * type within a district, as Somerville does). They are listed with their citations; the envelope
 * does not compute with them.
 */
export const BUILDING_TYPE_STANDARD_UNITS = {
  ...STANDARD_UNITS,
  maxFrontYardFt: 'ft',
  maxStreetSideYardFt: 'ft',
  minSideYardSumFt: 'ft',
  minHeightStoreys: 'storeys',
  maxUnitsPerBuilding: 'units',
  minGreenScore: 'score',
} as const;
export type BuildingTypeStandardKey = keyof typeof BUILDING_TYPE_STANDARD_UNITS;
export const BUILDING_TYPE_STANDARD_KEYS = Object.keys(BUILDING_TYPE_STANDARD_UNITS) as BuildingTypeStandardKey[];

/** Statuses a rules file may state. The others (derived_from_cited, defaulted, missing) are computed by the envelope. */
const RULE_STATUSES = VALUE_STATUSES.filter((s) => s !== 'derived_from_cited' && s !== 'defaulted' && s !== 'missing') as [
  (typeof VALUE_STATUSES)[number],
  ...(typeof VALUE_STATUSES)[number][],
];

/**
 * A citation is a pointer into a document the place holds: the document's id in the manifest's
 * `documents`, the section as the document numbers it, and the bylaw's words, verbatim ("…" marks
 * words left out). Loading the rules verifies it (verify-citations.ts) and adds what a reader needs
 * to find and check it: the document's published URL and edition, and the service's own page that
 * shows the quote in its section.
 */
const citationSchema = z
  .object({
    document: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a document id of the manifest (lower case, digits, hyphens)'),
    section: z.string().min(1),
    quote: z.string().min(3),
  })
  .strict()
  .transform((c) => c as ResolvedCitation);

/** A citation as loaded: the rules file's pointer plus what verification found (filled by load-rules). */
export interface ResolvedCitation {
  document: string;
  section: string;
  quote: string;
  /** The document's title (e.g. "Somerville Zoning Ordinance"). */
  documentTitle: string;
  /** Where the document is published. */
  sourceUrl: string;
  /** The edition (or effective date) of the held text. */
  date: string;
  /** The service's page that shows the quote highlighted in its section (a path on this service). */
  href: string;
  /** The knowledge section the quote is in (stable UUID; saveToProject attach_reference takes it). */
  sectionUuid: string;
}

/**
 * One tier of a conditional rule. `when`: conditions that must all hold (expressions over the lot,
 * or prose, which cannot be evaluated); `values`: value expressions. Several values without `pick`
 * means the bylaw chooses among them in words, so the tier cannot be resolved.
 */
const tierSchema = z.object({
  when: z.array(z.string().min(1)),
  values: z.array(z.string().min(1)).min(1),
  pick: z.enum(['min', 'max']).optional(),
});

export const ruleValueSchema = z
  .object({
    status: z.enum(RULE_STATUSES),
    value: z.number().finite().nullable().optional(),
    citation: citationSchema.optional(),
    condition: z.string().min(1).optional(),
    note: z.string().min(1).optional(),
    /** Conditional tiers, resolved against the lot when the envelope is built. */
    tiers: z.array(tierSchema).min(1).optional(),
    /** Multiplier from the tier expressions' unit to the standard's unit (OZFS acres -> sq ft: 43560). */
    scale: z.number().positive().optional(),
    /** The source id (S1...) that states there is no limit, where no bylaw text verifies it: unverified_default, value null. */
    statedNoLimit: z
      .string()
      .regex(/^S\d{1,3}$/)
      .optional(),
    /**
     * How an ambiguous row is read (a row with two numbers under a "(max)" or "(min)" label, which a
     * flattened table can give for a shifted cell or two sub-types): `columns: "min/max"` reads the
     * first as the minimum and the second as the maximum, and `support` quotes the ordinance's own
     * words that settle it ("four to six dwelling units"); the checker verifies that quote too and
     * that it states the same two numbers. Without a reading such a row is not citable.
     */
    reading: z
      .object({ columns: z.literal('min/max'), support: citationSchema, note: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const bad = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const hasValue = r.value !== undefined && r.value !== null;
    if (r.tiers) {
      if (r.status !== 'cited' && r.status !== 'cited_conditional' && r.status !== 'unverified_default')
        bad('status', 'a rule with tiers states the status its resolved values take: cited, cited_conditional or unverified_default');
      if (hasValue) bad('value', 'a rule with tiers takes its value from the tiers, not from value');
    }
    if (r.statedNoLimit !== undefined && (r.status !== 'unverified_default' || hasValue || r.tiers))
      bad(
        'statedNoLimit',
        'statedNoLimit marks an unverified no-limit: status unverified_default, value null, no tiers (a no-limit read from the bylaw is no_limit_in_bylaw)',
      );
    switch (r.status) {
      case 'cited':
      case 'cited_conditional':
        if (!r.citation) bad('citation', `${r.status} needs a citation (document, section, quote)`);
        if (!r.tiers && !hasValue) bad('value', `${r.status} needs a value`);
        if (r.status === 'cited_conditional' && !r.condition) bad('condition', 'cited_conditional needs the condition');
        break;
      case 'no_limit_in_bylaw':
        if (!r.citation) bad('citation', 'no_limit_in_bylaw is read from the bylaw: it needs a citation');
        if (hasValue) bad('value', 'no_limit_in_bylaw carries value null');
        break;
      case 'unverified_default':
        if (!r.note) bad('note', 'unverified_default needs a note naming its source');
        break;
      case 'conditional_unresolved':
        if (hasValue) bad('value', 'conditional_unresolved carries value null');
        if (!r.condition) bad('condition', 'conditional_unresolved needs the condition');
        break;
      case 'not_extracted':
      case 'site_specific_schedule':
        if (hasValue) bad('value', `${r.status} carries value null: the value is unknown`);
        break;
    }
  });

const useRuleSchema = z
  .object({
    use: z.string().min(1),
    permission: z.enum(['as_of_right', 'special_permit', 'conditional', 'prohibited', 'unknown']),
    status: z.enum(RULE_STATUSES),
    citation: citationSchema.optional(),
    condition: z.string().min(1).optional(),
    note: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((u, ctx) => {
    if ((u.status === 'cited' || u.status === 'cited_conditional') && !u.citation)
      ctx.addIssue({ code: 'custom', path: ['citation'], message: `${u.status} needs a citation` });
    if (u.status === 'unverified_default' && !u.note)
      ctx.addIssue({ code: 'custom', path: ['note'], message: 'unverified_default needs a note naming its source' });
  });

const standardsShape = Object.fromEntries(STANDARD_KEYS.map((k) => [k, ruleValueSchema.optional()])) as Record<
  StandardKey,
  z.ZodOptional<typeof ruleValueSchema>
>;
const buildingTypeStandardsShape = Object.fromEntries(BUILDING_TYPE_STANDARD_KEYS.map((k) => [k, ruleValueSchema.optional()])) as Record<
  BuildingTypeStandardKey,
  z.ZodOptional<typeof ruleValueSchema>
>;

/** One building type a district allows, with the standards of its own table (values conditional on the type). */
const buildingTypeSchema = z
  .object({
    name: z.string().min(1),
    /** The section that sets the type's standards (e.g. "3.1.8"). */
    section: z.string().min(1),
    /** How the district allows it (e.g. "by right", "by Site Plan Approval"), as the ordinance says. */
    allowed: z.string().min(1).optional(),
    note: z.string().min(1).optional(),
    standards: z.object(buildingTypeStandardsShape).strict(),
    /** Standards of the type's table that could not be read, each with the reason. */
    notExtracted: z.record(z.string(), z.string().min(1)).optional(),
  })
  .strict();

export const districtRulesSchema = z
  .object({
    name: z.string().min(1),
    /** The section that governs the district when it has its own schedule (e.g. "Art. 17.000"). */
    governedBy: z.string().min(1).optional(),
    /**
     * The district's section in the place's held document, as the document numbers it (e.g. "3.1"):
     * every citation of the district's values and uses must lie in it (a building type's, in the
     * type's own `section`, itself inside this one). Required once the district cites anything.
     */
    section: z.string().min(1).optional(),
    /** Where to read this district's rules (e.g. its page of the bylaw). */
    sourceUrl: z.string().url().optional(),
    note: z.string().min(1).optional(),
    standards: z.object(standardsShape).strict(),
    /** The status (and note) of every standard the district does not list. Default: not_extracted. */
    otherStandards: ruleValueSchema.optional(),
    uses: z.array(useRuleSchema),
    /** Building types the district allows, each with its own dimensional table (zoning by building type). */
    buildingTypes: z.record(z.string(), buildingTypeSchema).optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    const o = d.otherStandards;
    if (o && o.status !== 'not_extracted' && o.status !== 'site_specific_schedule')
      ctx.addIssue({ code: 'custom', path: ['otherStandards', 'status'], message: 'otherStandards is not_extracted or site_specific_schedule' });
    if (o?.status === 'site_specific_schedule' && !d.governedBy)
      ctx.addIssue({ code: 'custom', path: ['governedBy'], message: 'a district on a site-specific schedule names the governing section' });
  });

const overlayRulesSchema = z
  .object({
    name: z.string().min(1),
    governedBy: z.string().min(1).optional(),
    note: z.string().min(1).optional(),
  })
  .strict();

export const placeRulesSchema = z
  .object({
    slug: z.string().regex(/^[a-z0-9-]+$/),
    country: z.enum(['US', 'CA']),
    /**
     * The ordinance the values are read from. A town whose ordinance text is not (yet) available has no
     * url: it then says so in `note`, and every value is not_extracted (no citation can exist).
     */
    bylaw: z
      .object({ name: z.string().min(1), url: z.string().url().optional(), date: z.string().min(1), note: z.string().min(1).optional() })
      .strict()
      .refine((b) => b.url !== undefined || b.note !== undefined, {
        message: 'a bylaw without a url needs a note saying why (e.g. "No ordinance text was read")',
        path: ['note'],
      }),
    notes: z.array(z.string().min(1)).default([]),
    /**
     * The documents the notes and conditions name by id (e.g. "S1" of Cambridge's RULES-FACTS.md),
     * each defined once here; a snapshot carries the ones its texts name (docs/snapshot.md).
     */
    sources: z
      .record(
        z.string().regex(/^S\d{1,3}$/),
        // label: a few words a snapshot carries inline (its kind, date or weight); the rest is in the place's source catalogue.
        z.object({ name: z.string().min(1), label: z.string().min(1).max(60).optional(), vintage: z.string().min(1), url: z.string().url() }).strict(),
      )
      .optional(),
    /** Map codes as they appear in the zoning layer to a district of this file (typos, variants). */
    aliases: z.record(z.string(), z.string()).default({}),
    /** Regular expressions over layer codes that map to a district (e.g. "^PD \\d+$" -> "PD"). */
    patterns: z.array(z.object({ match: z.string().min(1), district: z.string().min(1) }).strict()).default([]),
    overlays: z.record(z.string(), overlayRulesSchema).default({}),
    /** When set, districts are read from an OZFS .zoning file at load time (path under the source dir). */
    ozfs: z
      .object({ file: z.string().min(1), sourceUrl: z.string().url(), date: z.string().min(1), note: z.string().min(1) })
      .strict()
      .optional(),
    districts: z.record(z.string(), districtRulesSchema),
    /**
     * Words this place's ordinance uses beyond the checker's defaults (src/rules/citation-vocabulary.ts),
     * each a regular expression (case-insensitive): more row labels per standard, rows that state a
     * standard under a condition of their own, sub-row condition labels by family, permission words.
     */
    citationVocabulary: z
      .object({
        labels: z
          .partialRecord(z.enum(BUILDING_TYPE_STANDARD_KEYS as [BuildingTypeStandardKey, ...BuildingTypeStandardKey[]]), z.array(z.string().min(1)))
          .optional(),
        variants: z
          .partialRecord(
            z.enum(BUILDING_TYPE_STANDARD_KEYS as [BuildingTypeStandardKey, ...BuildingTypeStandardKey[]]),
            z.array(z.object({ label: z.string().min(1), condition: z.string().min(1) }).strict()),
          )
          .optional(),
        conditions: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), z.array(z.string().min(1))).optional(),
        /** A name for each condition family a caller may state (`"sequence": "Lot in a sequence"`), beside the defaults. */
        conditionNames: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), z.string().min(1).max(40)).optional(),
        permissions: z.partialRecord(z.enum(['as_of_right', 'special_permit', 'conditional', 'prohibited']), z.array(z.string().min(1))).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const vocab = p.citationVocabulary;
    const lists = [
      ...Object.values(vocab?.labels ?? {}),
      ...Object.values(vocab?.variants ?? {}).map((l) => l.map((x) => x.label)),
      ...Object.values(vocab?.conditions ?? {}),
      ...Object.values(vocab?.permissions ?? {}),
    ];
    for (const l of lists)
      for (const src of l ?? [])
        try {
          new RegExp(src, 'i');
        } catch {
          ctx.addIssue({ code: 'custom', path: ['citationVocabulary'], message: `not a valid regular expression: ${src}` });
        }
    for (const [code, target] of Object.entries(p.aliases))
      if (!(target in p.districts) && !p.ozfs) ctx.addIssue({ code: 'custom', path: ['aliases', code], message: `alias target "${target}" is not a district` });
    p.patterns.forEach((pat, i) => {
      try {
        new RegExp(pat.match);
      } catch {
        ctx.addIssue({ code: 'custom', path: ['patterns', i, 'match'], message: 'not a valid regular expression' });
      }
      if (!(pat.district in p.districts) && !p.ozfs)
        ctx.addIssue({ code: 'custom', path: ['patterns', i, 'district'], message: `pattern target "${pat.district}" is not a district` });
    });
  });

export type Citation = ResolvedCitation;
export type BuildingType = z.infer<typeof buildingTypeSchema>;
export type RuleTier = z.infer<typeof tierSchema>;
export type RuleValue = z.infer<typeof ruleValueSchema>;
export type UseRule = z.infer<typeof useRuleSchema>;
export type DistrictRules = z.infer<typeof districtRulesSchema>;
export type OverlayRules = z.infer<typeof overlayRulesSchema>;
export type PlaceRules = z.infer<typeof placeRulesSchema>;

/** The district of the rules that a zoning-layer code names: exact, alias, then pattern. */
export function findDistrict(rules: PlaceRules, code: string): { code: string; district: DistrictRules } | null {
  const exact = rules.districts[code];
  if (exact) return { code, district: exact };
  const alias = rules.aliases[code];
  if (alias && rules.districts[alias]) return { code: alias, district: rules.districts[alias] };
  for (const p of rules.patterns) {
    const d = rules.districts[p.district];
    if (d && new RegExp(p.match).test(code)) return { code: p.district, district: d };
  }
  return null;
}
