// getFeasibilitySnapshot (gated): the sourced snapshot for one address. The payload is the same
// for every `source`; the source goes to attribution (_meta and the log) and the link back.
import { z } from 'zod';
import { addressInput } from '../address-input.ts';
import { cachedSnapshot } from '../../snapshot/answer-cache.ts';
import { snapshotSummary } from '../../snapshot/summary.ts';
import { withSourcesInline } from '../../snapshot/source-catalogue.ts';
import { defineTool, noFormReason, toolError, type ToolOutcome } from '../tool-definition.ts';
import { SitelineError } from '../../core/errors.ts';
import { STATED_MAX_LENGTH } from '../../snapshot/stated-district.ts';
import { LOT_ID_MAX_LENGTH } from '../../snapshot/picked-lot.ts';
import { MAX_STATED_CONDITIONS } from '../../rules/tier-conditions.ts';
import type { ConditionOption, Snapshot } from '../../core/snapshot-types.ts';

/** The key of the district form in inputRequests / inputResponses. */
const DISTRICT_FORM_KEY = 'district';

const SNAPSHOT_SOURCES = ['zoning_lookup', 'lot_dimensions', 'setback_lookup', 'height_limit_lookup', 'full'] as const;

export const getFeasibilitySnapshot = defineTool({
  name: 'getFeasibilitySnapshot',
  title: 'Feasibility snapshot',
  description:
    'The sourced site snapshot for ONE US or Canadian street address (no search, no comparison): the lot (parcelExternalId, area, frontage, ' +
    'a point inside the lot), its zoning district(s) and overlays, permitted uses, and the building envelope. Every value is an object with ' +
    'value and status; a null value means nothing without its status (not_extracted = unknown, never "no limit"). ' +
    'Outside coverage the call still succeeds with answered: false and a coverage block saying why. ' +
    'Sources, citations and shared notes are defined once (sources, citations, notes) and named by id on each value; sources ' +
    "gives each source's label, the place's catalogue (sourceCatalogue.url, a path on this server) its vintage, licence and URL: set includeSources to get those inline. " +
    'Set source to the question being answered (zoning_lookup, lot_dimensions, setback_lookup, height_limit_lookup or full); ' +
    'the payload is identical for every source, which is used for attribution. Requires sign-in: called without a token it answers 401 and the client starts OAuth.',
  input: z.object({
    address: addressInput('One street address in Canada or the US, e.g. "57 Inman St, Cambridge, MA".'),
    source: z
      .enum(SNAPSHOT_SOURCES)
      .describe('Which question is being answered; used for attribution and the link back. The payload is the same for every value.'),
    includeSources: z
      .boolean()
      .optional()
      .describe(
        "True: the place's source catalogue inline (sourceCatalogue.sources: every source in full, with vintage, licence, attribution, URL). Default false: labels and the catalogue's path.",
      ),
    district: z
      .string()
      .max(STATED_MAX_LENGTH)
      .optional()
      .describe(
        "Only for a place without a zoning map (Somerville, MA): the lot's zoning district as the City's official map shows it (e.g. NR). Never guessed: without it the answer gives the lot and asks. Ignored (with a warning) where siteline reads the district from a zoning map (Cambridge).",
      ),
    buildingType: z
      .string()
      .max(STATED_MAX_LENGTH)
      .optional()
      .describe(
        'With district, where the district zones by building type (Somerville NR: Cottage, Detached House, ...): the building type intended; its own dimensional table is applied.',
      ),
    conditions: z
      .array(z.string().max(2 * STATED_MAX_LENGTH))
      .max(MAX_STATED_CONDITIONS)
      .optional()
      .describe(
        'With buildingType: the conditions its table states values under, which siteline cannot read from its data (Somerville: driveway access, alley, what the lot abuts, lot in a sequence), each "Name=Value" or the value alone, e.g. ["Driveway access=Front Driveway Access"]. The answer\'s districtChoice lists each condition with its values; never guessed: without one those values stay conditional_unresolved.',
      ),
    lotId: z
      .string()
      .max(LOT_ID_MAX_LENGTH)
      .optional()
      .describe(
        "A lot of the address's place by the id an answer gives as lot.parcelExternalId: the answer is for that lot (address.matchType lot_id, and a first warning naming the lot the address alone matched). For a weak match (confidence below 0.8) when the user names the lot they meant. An id the place does not hold is refused.",
      ),
  }),
  purpose: 'The full sourced snapshot for one address: lot, zoning, permitted uses and the building envelope, every value with its status.',
  output: z.looseObject({
    answered: z.boolean().describe('false: outside coverage; read coverage.status and coverage.message.'),
    coverage: z.looseObject({ status: z.string(), eligibilityKnown: z.boolean(), message: z.string() }),
    address: z.record(z.string(), z.unknown()).optional(),
    lot: z.looseObject({ parcelExternalId: z.string(), latitude: z.number(), longitude: z.number(), areaM2: z.number(), areaSqft: z.number() }).optional(),
    zones: z.looseObject({ primary: z.string().nullable(), districts: z.array(z.record(z.string(), z.unknown())), splitLot: z.boolean() }).optional(),
    permittedUses: z.array(z.looseObject({ use: z.string(), permission: z.string(), status: z.string() })).optional(),
    envelope: z
      .record(z.string(), z.looseObject({ value: z.union([z.number(), z.string(), z.null()]), status: z.string() }))
      .optional()
      .describe('Every value with value and status; citation and notes by id.'),
    sources: z.record(z.string(), z.string()),
    sourceCatalogue: z.looseObject({ url: z.string() }).optional(),
    attribution: z.array(z.string()).optional(),
    citations: z.record(z.string(), z.looseObject({ document: z.string(), section: z.string(), quote: z.string() })).optional(),
    notes: z.record(z.string(), z.string()).optional(),
    suggestions: z.array(z.string()).optional(),
    generatedAt: z.string(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  access: 'gated',
  async handler({ address, source, includeSources, district, buildingType, conditions, lotId }, call) {
    let stated: { district?: string | undefined; buildingType?: string | undefined; conditions?: string[] | undefined; lotId?: string | undefined } = {
      district,
      buildingType,
      conditions,
      lotId,
    };
    // A form answered by the user (2026-07-28 retry): their district, building type and conditions.
    const response = call.inputResponses?.[DISTRICT_FORM_KEY] as { action?: unknown; content?: unknown } | undefined;
    let declined: string | null = null;
    if (response) {
      if (response.action === 'accept') {
        const content = (response.content ?? {}) as Record<string, unknown>;
        const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
        // Each condition field answered: "<key>=<value>" (a field left empty states nothing); the form's answers replace the arguments'.
        const answered = Object.entries(content).flatMap(([k, v]) =>
          k.startsWith(CONDITION_FIELD) && text(v) ? [`${k.slice(CONDITION_FIELD.length)}=${text(v)}`] : [],
        );
        stated = {
          district: text(content['district']) ?? district,
          buildingType: text(content['buildingType']) ?? buildingType,
          conditions: answered.length ? answered : conditions,
          lotId,
        };
      } else declined = response.action === 'decline' ? 'declined' : 'cancelled';
    }
    let entry;
    try {
      entry = await cachedSnapshot(call.ctx, address, stated);
    } catch (err) {
      // A district or building type the user chose that does not fit: ask again, saying why.
      if (
        response?.action === 'accept' &&
        call.canElicit &&
        err instanceof SitelineError &&
        err.code === 'bad_input' &&
        Array.isArray(err.details?.['districts'])
      ) {
        const again = await cachedSnapshot(call.ctx, address, { district, buildingType, lotId });
        if (again.snapshot.districtChoice) return askDistrict(again.snapshot, err.message);
      }
      throw err;
    }
    const asked = entry.snapshot.answered ? entry.snapshot.districtChoice : undefined;
    if (asked && !declined && !response) {
      if (call.canElicit) return askDistrict(entry.snapshot);
      if (asked.needs === 'district') return districtRefusal(entry.snapshot, call.era);
    }
    const snapshot = includeSources ? await withSourcesInline(call.ctx, entry.snapshot) : entry.snapshot;
    const params: [string, string][] = [
      ['address', address],
      ['ref', `mcp-${source}`],
    ];
    if (snapshot.zones?.districtSource && snapshot.zones.primary) params.push(['district', snapshot.zones.primary]);
    if (snapshot.zones?.districtSource?.buildingType) params.push(['buildingType', snapshot.zones.districtSource.buildingType]);
    for (const c of snapshot.zones?.districtSource?.conditions ?? []) params.push(['condition', `${c.key}=${c.value}`]);
    if (snapshot.address?.matchType === 'lot_id' && snapshot.lot) params.push(['lot', snapshot.lot.parcelExternalId]);
    const link = `${call.ctx.config.baseUrl}/sites?${new URLSearchParams(params).toString()}`;
    call.ctx.logger.info({ requestId: call.requestId, tool: 'getFeasibilitySnapshot', source, answered: snapshot.answered }, 'snapshot served');
    // A one-line summary, then the whole answer as JSON text (made once per cache entry) for text-only clients.
    return {
      text: declined
        ? `The user ${declined} the ${asked?.needs === 'conditions' ? 'conditions' : 'district'} form: nothing was stated${asked?.needs === 'conditions' ? ', so the values that depend on them stay conditional_unresolved' : ', so no district is applied'}. ${snapshotSummary(snapshot)}`
        : snapshotSummary(snapshot),
      structured: snapshot as unknown as Record<string, unknown>,
      ...(includeSources ? {} : { json: entry.json }),
      meta: { 'siteline/attribution': { source, link, generatedAt: snapshot.generatedAt } },
    };
  },
});

/** The form's field for a condition: this prefix and the condition's key (`condition_driveway`). */
const CONDITION_FIELD = 'condition_';

/**
 * A condition's field: its values as choices (every value any table offered lists it under, deduplicated),
 * optional, described with the districts and building types whose tables state values under it.
 */
function conditionField(options: readonly { code: string; c: ConditionOption }[]): Record<string, unknown> {
  const values: string[] = [];
  for (const { c } of options) for (const v of c.values) if (!values.some((x) => x.toLowerCase() === v.toLowerCase())) values.push(v);
  const where = options.map(({ code, c }) => `${code}${c.buildingTypes?.length ? ` ${c.buildingTypes.join(', ')}` : ''}: ${c.values.join(' / ')}`).join('; ');
  return {
    type: 'string',
    title: `${options[0]!.c.name} (leave empty if not known)`,
    description: `Only where the building type's table states values by it: ${where}.`,
    enum: values,
  };
}

/**
 * The district form (2026-07-28 form elicitation): the place's districts as choices, the building
 * types where a district zones by type, and the conditions their tables state values under (each
 * optional). Asked when the answer has districtChoice; the lot is known. When only conditions are
 * needed (district and type stated), the form asks for those alone.
 */
function districtFormSchema(choice: NonNullable<Snapshot['districtChoice']>) {
  const byKey = new Map<string, { code: string; c: ConditionOption }[]>();
  for (const d of choice.districts) for (const c of d.conditions ?? []) byKey.set(c.key, [...(byKey.get(c.key) ?? []), { code: d.code, c }]);
  const conditionFields = Object.fromEntries([...byKey].map(([key, options]) => [`${CONDITION_FIELD}${key}`, conditionField(options)]));
  if (choice.needs === 'conditions') return { type: 'object' as const, properties: conditionFields };
  const types = [...new Set(choice.districts.flatMap((d) => d.buildingTypes ?? []))];
  const properties: Record<string, Record<string, unknown>> = {
    district: {
      type: 'string',
      title: "The lot's zoning district (as the City's official zoning map shows it)",
      enum: choice.districts.map((d) => d.code),
      enumNames: choice.districts.map((d) => `${d.code}: ${d.name}`),
      ...(choice.needs === 'buildingType' ? { default: choice.districts[0]!.code } : {}),
    },
  };
  if (types.length) {
    properties['buildingType'] = {
      type: 'string',
      title: 'Building type (where the district zones by building type)',
      description: choice.districts
        .filter((d) => d.buildingTypes?.length)
        .map((d) => `${d.code}: ${d.buildingTypes!.join(', ')}`)
        .join('; '),
      enum: types,
    };
  }
  Object.assign(properties, conditionFields);
  return { type: 'object' as const, properties, required: choice.needs === 'buildingType' ? ['district', 'buildingType'] : ['district'] };
}

function askDistrict(s: Snapshot, problem?: string): ToolOutcome {
  const c = s.districtChoice!;
  const lot = s.lot ? `Lot ${s.lot.parcelExternalId} (${s.address?.matchedAddress ?? ''}, ${s.lot.areaSqft} sq ft) found. ` : '';
  const message = `${problem ? `${problem} ` : ''}${lot}${c.message}`;
  return { text: message, formRequest: { key: DISTRICT_FORM_KEY, message, requestedSchema: districtFormSchema(c) } };
}

/**
 * A client that cannot show the form (the stateless 2025 leg, or no elicitation capability): a
 * structured refusal naming the districts, with the lot found, so the caller can call again with one.
 */
function districtRefusal(s: Snapshot, era: 'modern' | 'legacy'): ToolOutcome {
  const c = s.districtChoice!;
  const sentence =
    `${s.address?.matchedAddress ?? 'The address'} is lot ${s.lot?.parcelExternalId} in ${s.coverage.place?.name ?? 'this place'}, but ${c.message} ` +
    `Ask the user (${noFormReason(era)}), then call getFeasibilitySnapshot again with district set to one of ${c.districts.map((d) => d.code).join(', ')}` +
    `${c.districts.some((d) => d.buildingTypes?.length) ? ' and buildingType where the district zones by building type' : ''}` +
    `${c.districts.some((d) => d.conditions?.length) ? ' (and conditions, e.g. ["Driveway access=Front Driveway Access"], where its table states values under them)' : ''}.`;
  return toolError(sentence, {
    error: { code: 'district_required', message: sentence, needs: c.needs, districts: c.districts, districtSource: s.zones?.districtSource ?? null },
    lot: s.lot,
    address: s.address,
  });
}
