// The deterministic feasibility analysis of a project: from the lots as attached and the rules of
// their place, the combined build-lot area, the governing district(s) with every standard and its
// status, and the derived values (max floor area, dwelling units, buildable footprint, storeys,
// height, GFA envelope), each with the status the one propagation table (propagation.ts) gives.
// Same inputs -> byte-identical result: no clock, no randomness, canonical JSON, a digest of the inputs.
import type { Queryable } from '../db/database.ts';
import type { AppContext } from '../context.ts';
import { canonicalJson, sha256Hex } from '../core/canonical-json.ts';
import { buildEnvelope } from '../core/envelope.ts';
import { sourceIdsIn, type NamedSources } from '../snapshot/refs.ts';
import type { Citation, Sourced } from '../core/snapshot-types.ts';
import { FT_PER_M } from '../core/geo/primitives.ts';
import { STANDARD_KEYS, findDistrict, type PlaceRules, type StandardKey } from '../core/rules-schema.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { conditionsOfTable, envelopeConditions, statedAgainstTable } from '../rules/tier-conditions.ts';
import { conditionsSentence } from '../snapshot/stated-district.ts';
import type { StatedLotDistrict } from '../projects/project-lots.ts';
import { lotsOfProject, type ProjectLot } from '../projects/project-lots.ts';
import { buildableFootprint } from './buildable-footprint.ts';
import { propagate } from './propagation.ts';
import type { DerivedValue, EvidenceItem, FeasibilityAnalysis } from './analysis-result.ts';
import { notCalculatedWords } from '../core/value-words.ts';

/** Bumped when the analysis itself changes: part of the inputs digest, so results never mix versions. */
const ANALYSIS_VERSION = 'feasibility-2026-12-07b';
const SQFT_PER_ACRE = 43560;
const SPLIT_MIN_SHARE = 0.05;

export interface PlaceInput {
  geoDivisionId: string;
  slug: string;
  country: 'US' | 'CA';
  rules: PlaceRules;
  rulesDigest: string;
}

export interface AnalysisInputs {
  projectId: string;
  lots: ProjectLot[];
  places: PlaceInput[];
  digest: string;
}

const rulesDigests = new WeakMap<PlaceRules, string>();
function rulesDigest(rules: PlaceRules): string {
  let d = rulesDigests.get(rules);
  if (!d) {
    d = sha256Hex(canonicalJson(rules));
    rulesDigests.set(rules, d);
  }
  return d;
}

/** What an analysis of this project would read now, and its digest (cheap: lots rows + cached rules). */
/** A place row as loadAnalysisInputs reads it (getProjectContext reads these with its lists). */
export interface PlaceRow {
  place_id: string;
  slug: string;
  country: string;
}

/**
 * The analysis inputs of a project: its lots as attached and the rules of their places. Callers that
 * already read the lots (and the place rows of those lots, ordered by place_id) pass them in.
 */
export async function loadAnalysisInputs(
  ctx: AppContext,
  q: Queryable,
  projectId: string,
  preloaded?: ProjectLot[],
  placeRows?: PlaceRow[],
): Promise<AnalysisInputs> {
  const lots = preloaded ?? (await lotsOfProject(q, projectId));
  const placeIds = [...new Set(lots.map((l) => l.lot.geoDivisionId))].sort();
  const places: PlaceInput[] = [];
  if (placeIds.length) {
    const rows =
      placeRows ?? (await q.query<PlaceRow>('SELECT place_id, slug, country FROM places WHERE place_id = ANY($1::text[]) ORDER BY place_id', [placeIds]));
    for (const r of rows) {
      const rules = await loadPlaceRules(ctx, r.slug);
      places.push({ geoDivisionId: r.place_id, slug: r.slug, country: r.country === 'CA' ? 'CA' : 'US', rules, rulesDigest: rulesDigest(rules) });
    }
  }
  const digest = sha256Hex(
    canonicalJson({
      analysisVersion: ANALYSIS_VERSION,
      lots: lots.map((l) => ({ role: l.role, lot: l.lot })),
      rules: places.map((p) => ({ place: p.geoDivisionId, digest: p.rulesDigest })),
    }),
  );
  return { projectId, lots, places, digest };
}

const r2 = (x: number) => Math.round(x * 100) / 100;

function citationOf(s: Sourced | undefined): Citation | undefined {
  return s?.citation;
}

/** A limit derived from standards: rule 2 (no limit binds) per formula, then the table. */
function derived(
  unit: string,
  formula: string,
  inputs: { name: string; s: Sourced }[],
  compute: () => number | null,
  opts: { noLimitWhen?: boolean; note?: string } = {},
): DerivedValue {
  const names = inputs.map((i) => i.name);
  const p = propagate(inputs.map((i) => i.s.status));
  const conditions = [...new Set(inputs.filter((i) => i.s.condition).map((i) => `${i.name}: ${i.s.condition}`))];
  const base = { unit, formula, inputs: names, ...(conditions.length ? { condition: conditions.join('; ') } : {}) };
  if (!p.known) {
    // Worded as every surface words a value (core/value-words.ts): which inputs have no number, and why.
    const blocking = inputs.filter(
      (i) => i.s.status === p.status || ['not_extracted', 'site_specific_schedule', 'conditional_unresolved', 'missing'].includes(i.s.status),
    );
    return {
      value: null,
      status: p.status,
      ...base,
      note: `${notCalculatedWords(blocking.map((i) => ({ key: i.name, value: i.s })))}${opts.note ? ` ${opts.note}` : ''}`,
    };
  }
  // A status that counts as known (an unverified default, say) may still come without a number: then
  // the result is unknown too, never computed with the missing number as 0.
  const valueless = inputs.filter((i) => !hasValue(i.s));
  if (valueless.length) {
    return {
      value: null,
      status: p.status,
      ...base,
      note: `${notCalculatedWords(valueless.map((i) => ({ key: i.name, value: { ...i.s, value: null } })))}${opts.note ? ` ${opts.note}` : ''}`,
    };
  }
  if (opts.noLimitWhen)
    return {
      value: null,
      status: 'no_limit_in_bylaw',
      ...base,
      note: `No limit: the bylaw sets none for the binding input.${opts.note ? ` ${opts.note}` : ''}`,
    };
  const v = compute();
  if (v === null) return { value: null, status: 'missing', ...base, note: opts.note ?? 'The lot data this value needs is missing.' };
  const weak = inputs.filter((i) => i.s.status === 'unverified_default' || i.s.status === 'defaulted').map((i) => `${i.name} is ${i.s.status}`);
  const note = [weak.length ? `Indicative only: ${weak.join('; ')}.` : '', opts.note ?? ''].filter(Boolean).join(' ');
  return { value: r2(Math.max(0, v)), status: p.status, ...base, ...(note ? { note } : {}) };
}

const missing = (name: string): { name: string; s: Sourced } => ({ name, s: { value: null, status: 'missing' } });

/** A standard a formula can use: a number, or no limit at all (which the formula drops or treats as none). */
function hasValue(s: Sourced): boolean {
  return s.status === 'no_limit_in_bylaw' || (typeof s.value === 'number' && Number.isFinite(s.value));
}

/**
 * The feasibility analysis of a project's lots, in the order docs/projects.md lists its results: the
 * context lots summarised; the build lots' districts by area; the combined site (frontage, depth,
 * corner); the envelope of the governing district; the values derived from its standards; the evidence.
 */
export function analyseFeasibility(inputs: AnalysisInputs): FeasibilityAnalysis {
  const build = inputs.lots.filter((l) => l.role === 'build');
  const base = { analysisVersion: ANALYSIS_VERSION, inputsDigest: inputs.digest, contextLots: contextLotsOf(inputs.lots.filter((l) => l.role === 'context')) };
  if (build.length === 0)
    return {
      ...base,
      buildLots: [],
      combinedLotArea: { value: null, unit: 'sqft', status: 'missing' },
      governingDistricts: [],
      standards: {},
      derived: {},
      evidence: [],
      notes: ['No build lot is attached: attach one as a build lot.'],
    };

  const { areaSqft, districts, overlays, governingDistricts } = districtsOf(build);
  const notes: string[] = [];
  const placeIds = [...new Set(build.map((l) => l.lot.geoDivisionId))];
  const place = inputs.places.find((p) => p.geoDivisionId === build[0]!.lot.geoDivisionId);
  // In the words of the page and the report: the places by their bylaws, never by their catalogue ids.
  if (placeIds.length > 1)
    notes.push(
      `The build lots lie in ${placeIds.length} places; the rules of the first build lot's place${place ? ` (${place.rules.bylaw.name})` : ''} are applied to all of them.`,
    );
  if (!place)
    return {
      ...base,
      buildLots: build.map((l) => l.lot.parcelExternalId),
      combinedLotArea: { value: areaSqft, unit: 'sqft', basis: 'parcel_geometry' },
      governingDistricts,
      standards: {},
      derived: {},
      evidence: [],
      notes: ['The place of the build lot is no longer catalogued; no rules could be applied.'],
    };

  const site = siteOf(build);
  const standards = standardsOf(place, build, { areaSqft, districts, overlays }, site, notes);
  const derivedValues = deriveValues(standards, build, areaSqft);
  noteAreaDoubts(build, derivedValues, notes);
  const evidence = evidenceOf(standards);
  return {
    ...base,
    buildLots: build.map((l) => ({
      parcelExternalId: l.lot.parcelExternalId,
      geoDivisionId: l.lot.geoDivisionId,
      areaSqft: l.lot.areaSqft,
      vintage: l.lot.vintage,
      ...(l.lot.warnings?.length ? { warnings: l.lot.warnings } : {}),
    })),
    combinedLotArea: { value: areaSqft, unit: 'sqft', basis: 'parcel_geometry' },
    lot: site,
    place: {
      geoDivisionId: place.geoDivisionId,
      bylaw: place.rules.bylaw.name,
      bylawDate: place.rules.bylaw.date,
      ...namedSourcesOf(place.rules.sources ?? {}, standards, notes),
    },
    governingDistricts,
    splitSite: governingDistricts.filter((d) => d.areaShare >= SPLIT_MIN_SHARE).length > 1,
    standards,
    derived: derivedValues,
    evidence,
    notes,
  };
}

type AnalysedLot = AnalysisInputs['lots'][number];
type BaseDistrict = { code: string; name: string | null; areaSqft: number };

/** Context lots are summarised only; they are not analysed as buildable. */
function contextLotsOf(context: AnalysedLot[]) {
  return {
    count: context.length,
    totalAreaSqft: context.reduce((t, l) => t + l.lot.areaSqft, 0),
    lots: context.map((l) => ({
      parcelExternalId: l.lot.parcelExternalId,
      areaSqft: l.lot.areaSqft,
      districts: l.lot.districts.filter((d) => d.layer === 'base').map((d) => d.code),
    })),
    note: 'Context lots are summarised only; they are not analysed as buildable.',
  };
}

/** The build lots' combined area, their base districts by area (largest first) and their overlays. */
function districtsOf(build: AnalysedLot[]) {
  const areaSqft = build.reduce((t, l) => t + l.lot.areaSqft, 0);
  const byCode = new Map<string, BaseDistrict>();
  const overlays = new Map<string, string | null>();
  for (const l of build) {
    for (const d of l.lot.districts) {
      if (d.layer === 'overlay') overlays.set(d.code, d.name);
      else {
        const e = byCode.get(d.code) ?? { code: d.code, name: d.name, areaSqft: 0 };
        e.areaSqft += d.share * l.lot.areaSqft;
        byCode.set(d.code, e);
      }
    }
  }
  const districts = [...byCode.values()].sort((a, b) => b.areaSqft - a.areaSqft || a.code.localeCompare(b.code));
  const governingDistricts = districts.map((d) => ({
    code: d.code,
    name: d.name,
    areaShare: areaSqft > 0 ? Math.round((d.areaSqft / areaSqft) * 1000) / 1000 : 0,
  }));
  return { areaSqft, districts, overlays, governingDistricts };
}

/** Frontage and depth of the combined site: one lot's own; several lots' frontages on the main street summed, the shallowest depth. */
function siteOf(build: AnalysedLot[]): { frontageFt: number | null; depthFt: number | null; cornerLot: boolean | null } {
  const mainStreet = build[0]!.lot.streets[0];
  const fronts = build.map((l) => (mainStreet ? l.lot.frontByStreet[mainStreet] : undefined));
  const frontageFt = fronts.every((f) => f) ? r2(fronts.reduce((t, f) => t + f!.frontageM, 0) * FT_PER_M) : null;
  const depthFt = fronts.every((f) => f) ? r2(Math.min(...fronts.map((f) => f!.depthM)) * FT_PER_M) : null;
  const cornerLot = build.some((l) => l.lot.cornerLot === true) ? true : build.every((l) => l.lot.cornerLot === false) ? false : null;
  return { frontageFt, depthFt, cornerLot };
}

/** The envelope of the governing district on the combined site: its standards, with the notes it and the lots add. */
function standardsOf(
  place: PlaceInput,
  build: AnalysedLot[],
  d: { areaSqft: number; districts: BaseDistrict[]; overlays: Map<string, string | null> },
  site: { frontageFt: number | null; depthFt: number | null; cornerLot: boolean | null },
  notes: string[],
): Record<string, Sourced> {
  const { areaSqft, districts, overlays } = d;
  const { frontageFt, depthFt, cornerLot } = site;
  // A place without a zoning map: the district each build lot was attached with, said with its source first.
  const stated = build.map((l) => l.lot.statedDistrict).filter((x): x is NonNullable<typeof x> => x !== undefined);
  const statedOf = stated.find((x) => x.code === districts[0]?.code);
  for (const l of build) {
    const sd = l.lot.statedDistrict;
    if (sd)
      notes.push(
        `${build.length > 1 ? `Lot ${l.lot.parcelExternalId}: d` : 'D'}istrict ${sd.code} (${sd.name})${sd.buildingType ? `, building type ${sd.buildingType},` : ''} ${sd.statement}.${sd.conditions?.length ? ` ${conditionsSentence(sd.conditions)}` : ''}`,
      );
  }
  const env = buildEnvelope({
    rules: place.rules,
    primaryZone: districts[0]?.code ?? null,
    zones: districts.map((x) => ({ code: x.code, share: areaSqft > 0 ? x.areaSqft / areaSqft : 0 })),
    overlays: [...overlays].sort((a, b) => a[0].localeCompare(b[0])).map(([code, name]) => ({ code, name })),
    lot: { areaSqft, frontageFt, depthFt, cornerLot, country: place.country },
    ...(statedOf ? { building: { buildingType: statedOf.buildingType, conditions: statedConditionsOf(place.rules, statedOf) } } : {}),
  });
  if (env.districtNote) notes.push(env.districtNote);
  // A build lot on two streets that is not a corner lot says why (docs/lot-metrics.md), as its snapshot does.
  if (cornerLot === false)
    for (const l of build)
      if (l.lot.cornerLotNote) notes.push(build.length > 1 ? `Lot ${l.lot.parcelExternalId}: ${l.lot.cornerLotNote}` : l.lot.cornerLotNote);
  notes.push(...env.notes);
  const standards: Record<string, Sourced> = {};
  for (const k of STANDARD_KEYS) {
    standards[k] = env.envelope[k]!;
    // A table that states the minimum sum of the side setbacks (Somerville): it bounds the footprint's side yards.
    if (k === 'minSideYardFt' && env.envelope['minSideYardSumFt']) standards['minSideYardSumFt'] = env.envelope['minSideYardSumFt'];
  }
  return standards;
}

/** The values derived from the standards and the combined area: floor area, units, the buildable footprint, storeys, height, gross floor area. */
function deriveValues(standards: Record<string, Sourced>, build: AnalysedLot[], areaSqft: number) {
  const s = (k: StandardKey) => ({ name: k, s: standards[k]! });
  const lotArea = { name: 'lot.areaSqft', s: { value: areaSqft, status: 'derived_from_cited' } as Sourced };
  const noLimit = (k: StandardKey) => standards[k]!.status === 'no_limit_in_bylaw';
  const val = (k: StandardKey) => standards[k]!.value as number;

  const maxFloorAreaSqft = derived('sqft', 'maxFar x combined build-lot area', [s('maxFar'), lotArea], () => val('maxFar') * areaSqft, {
    noLimitWhen: noLimit('maxFar'),
  });

  const unitTerms: { key: StandardKey; compute: () => number }[] = [
    { key: 'minLotAreaPerUnitSqft', compute: () => (val('minLotAreaPerUnitSqft') > 0 ? Math.floor(areaSqft / val('minLotAreaPerUnitSqft') + 1e-9) : Infinity) },
    { key: 'maxDensityUnitsPerAcre', compute: () => Math.floor((val('maxDensityUnitsPerAcre') * areaSqft) / SQFT_PER_ACRE + 1e-9) },
    { key: 'maxUnitsPerLot', compute: () => val('maxUnitsPerLot') },
  ];
  const limitingUnits = unitTerms.filter((t) => !noLimit(t.key));
  const maxDwellingUnits = derived(
    'units',
    'min(floor(area / minLotAreaPerUnitSqft), floor(maxDensityUnitsPerAcre x acres), maxUnitsPerLot); a no-limit term drops out',
    [...unitTerms.map((t) => s(t.key)), lotArea],
    () => Math.min(...limitingUnits.map((t) => t.compute())),
    { noLimitWhen: limitingUnits.length === 0 },
  );

  const yard = (k: StandardKey) => (noLimit(k) ? 0 : val(k));
  const lotsPolys = build.map((l) => l.lot.polygon);
  const lines = build.flatMap((l) => l.lot.frontStreetLines);
  // Where the table states a minimum sum of the side setbacks, each side yard is cut at the larger of the
  // minimum and half the sum: the building centred between its side lot lines (sideYardWithSum).
  const sideSum = standards['minSideYardSumFt'];
  const yardInputs = [
    s('minFrontYardFt'),
    s('minSideYardFt'),
    ...(sideSum ? [{ name: 'minSideYardSumFt', s: sideSum }] : []),
    s('minRearYardFt'),
    s('maxLotCoveragePct'),
  ];
  const yardsKnown = propagate(yardInputs.map((i) => i.s.status)).known && yardInputs.every((i) => hasValue(i.s));
  const side = yardsKnown ? sideYardWithSum(yard('minSideYardFt'), sideSum) : null;
  const inset = yardsKnown ? buildableFootprint(lotsPolys, lines, { frontFt: yard('minFrontYardFt'), sideFt: side!.ft, rearFt: yard('minRearYardFt') }) : null;
  const footprintInputs = inset && !inset.ok ? [...yardInputs, missing('lot.frontLotLine')] : [...yardInputs, lotArea];
  const buildableFootprintSqft = derived(
    'sqft',
    'area of (build-lot polygon minus front, side and rear yards measured from the real front lot line), capped by maxLotCoveragePct x area',
    footprintInputs,
    () => {
      if (!inset?.ok) return null;
      const cap = noLimit('maxLotCoveragePct') ? Infinity : (val('maxLotCoveragePct') / 100) * areaSqft;
      return Math.min(inset.areaSqft, cap);
    },
    inset && !inset.ok
      ? { note: `The footprint cannot be drawn: ${inset.reason}.` }
      : inset?.ok
        ? {
            note: `Front lot line: ${inset.frontEdges} edge(s), ${inset.frontLineFt} ft; ${inset.sideEdges} side and ${inset.rearEdges} rear edge(s); yard-inset area ${inset.areaSqft} sqft.${side?.note ? ` ${side.note}` : ''}`,
          }
        : {},
  );
  const maxStoreys = { ...standards['maxHeightStoreys']!, formula: 'maxHeightStoreys (as the bylaw states it)', inputs: ['maxHeightStoreys'] };
  const maxHeightFt = { ...standards['maxHeightFt']!, formula: 'maxHeightFt (as the bylaw states it)', inputs: ['maxHeightFt'] };
  const fp = { name: 'buildableFootprintSqft', s: buildableFootprintSqft as Sourced };
  const mfa = { name: 'maxFloorAreaSqft', s: maxFloorAreaSqft as Sourced };
  const storeysNoLimit = noLimit('maxHeightStoreys');
  const gfaTerms: number[] = [];
  const gfaEnvelopeSqft = derived(
    'sqft',
    'min(maxFloorAreaSqft, buildableFootprintSqft x maxHeightStoreys); a no-limit term drops out',
    [mfa, fp, s('maxHeightStoreys')],
    () => {
      if (maxFloorAreaSqft.status !== 'no_limit_in_bylaw') gfaTerms.push(maxFloorAreaSqft.value!);
      if (!storeysNoLimit && buildableFootprintSqft.value !== null) gfaTerms.push(buildableFootprintSqft.value * val('maxHeightStoreys'));
      return Math.min(...gfaTerms);
    },
    { noLimitWhen: maxFloorAreaSqft.status === 'no_limit_in_bylaw' && storeysNoLimit },
  );

  return { maxFloorAreaSqft, maxDwellingUnits, buildableFootprintSqft, maxStoreys, maxHeightFt, gfaEnvelopeSqft };
}

/** A build lot whose polygon and assessor areas disagree: every figure computed from the area says so. */
function noteAreaDoubts(build: AnalysedLot[], derived: ReturnType<typeof deriveValues>, notes: string[]): void {
  const { maxFloorAreaSqft, maxDwellingUnits, buildableFootprintSqft, gfaEnvelopeSqft } = derived;
  const areaDoubts = build.flatMap((l) => (l.lot.warnings ?? []).map((w) => `Lot ${l.lot.parcelExternalId}: ${w}`));
  if (areaDoubts.length) {
    notes.push(...areaDoubts);
    const doubt = `Uncertain: computed from a lot area in conflict with the assessor's (${areaDoubts.length === 1 ? "see the lot's warning" : "see the lots' warnings"}).`;
    for (const v of [maxFloorAreaSqft, maxDwellingUnits, buildableFootprintSqft, gfaEnvelopeSqft] as Sourced[])
      if (v.status !== 'no_limit_in_bylaw' && v.value !== null) v.note = v.note ? `${v.note} ${doubt}` : doubt;
  }
}

/** The citation of every standard that has one, as the evidence list. */
function evidenceOf(standards: Record<string, Sourced>): EvidenceItem[] {
  const evidence: EvidenceItem[] = [];
  for (const k of STANDARD_KEYS) {
    const c = citationOf(standards[k]);
    if (c)
      evidence.push({
        member: k,
        document: c.document,
        section: c.section,
        quote: c.quote,
        href: c.href,
        sourceUrl: c.sourceUrl,
        date: c.date,
        ...(c.sectionUuid ? { sectionUuid: c.sectionUuid } : {}),
        status: standards[k]!.status,
      });
  }
  return evidence;
}

/**
 * The side yard a footprint is cut with: the minimum side setback, or half the minimum sum of the side
 * setbacks where the table states a sum larger than twice the minimum (Somerville's Detached House with
 * front driveway access: 3 ft each, 12 ft together -> 6 ft each, the building centred; on a lot with
 * parallel sides its area is the same wherever it sits between them).
 */
function sideYardWithSum(sideFt: number, sum: Sourced | undefined): { ft: number; note?: string } {
  const total = sum && sum.status !== 'no_limit_in_bylaw' && typeof sum.value === 'number' ? sum.value : null;
  if (total === null || total <= 2 * sideFt) return { ft: sideFt };
  return {
    ft: total / 2,
    note: `Side yards: ${total / 2} ft each, half the minimum sum of the side setbacks (${total} ft), which is more than twice the minimum side setback (${sideFt} ft): the building centred between its side lot lines.`,
  };
}

/** The stated conditions of a lot's district as the envelope takes them (made whole against the table as it is now). */
function statedConditionsOf(rules: PlaceRules, d: StatedLotDistrict) {
  const district = findDistrict(rules, d.code)?.district;
  if (!district) return null;
  const table = conditionsOfTable(rules, district, d.buildingType);
  return envelopeConditions(table, statedAgainstTable(d.conditions, table));
}

/** The documents the standards' notes and conditions and the notes name by id ("S1"), defined once. */
function namedSourcesOf(named: NamedSources, standards: Record<string, Sourced>, notes: string[]): { sources?: NamedSources } {
  const ids = sourceIdsIn([...Object.values(standards).flatMap((v) => [v.note, v.condition]), ...notes], named);
  return ids.length ? { sources: Object.fromEntries(ids.map((id) => [id, named[id]!])) } : {};
}

/** The result as stored: canonical JSON text, identical bytes for identical inputs. */
export function analysisResultText(inputs: AnalysisInputs): string {
  return canonicalJson(analyseFeasibility(inputs));
}
