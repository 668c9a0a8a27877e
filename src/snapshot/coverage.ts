// The first step of every answer: which place is this address in, and can it be answered there?
// (src/snapshot/snapshot.ts and src/snapshot/preview.ts both start here.)
import { JOINS_TOO_POOR } from '../places/catalogue.ts';
import { placeStillLoading, stillLoadingCoverage } from '../places/place-loading.ts';
import type { AppContext } from '../context.ts';
import type { ParsedAddress } from '../geocoder/parse-address.ts';
import { geocodeInPlace } from '../geocoder/geocode.ts';
import { placeSource } from '../geocoder/place-index.ts';
import { candidateLabel, resolvePlace, type PlaceResolution } from '../places/resolve-place.ts';
import type { PlaceRecord } from '../places/catalogue.ts';
import type { Coverage } from '../core/snapshot-types.ts';

export type CoverageStep =
  | { kind: 'covered'; place: PlaceRecord; note?: string }
  | { kind: 'not_covered'; coverage: Coverage; place?: PlaceRecord; suggestions?: string[] };

/** Which place is this address in, and can it be answered there? */
export async function resolveCoverage(ctx: AppContext, parsed: ParsedAddress): Promise<CoverageStep> {
  let r: PlaceResolution = await resolvePlace(ctx, { city: parsed.city, region: parsed.region, country: parsed.country, postcode: parsed.postcode });
  let note: string | undefined;
  if (r.kind === 'ambiguous') {
    // Resolved by the address data: the one live candidate whose own tables hold this address — only
    // among places of one state or province (a postal city and the municipalities it covers). A name
    // shared across states ("Cambridge" alone) stays ambiguous: the same street address can exist in
    // a Cambridge whose data siteline does not hold.
    const holders: PlaceRecord[] = [];
    const regions = new Set(r.candidates.map((c) => (c.kind === 'place' ? `${c.place.country}-${c.place.region}` : `${c.country}-${c.region}`)));
    for (const c of regions.size === 1 ? r.candidates : []) {
      if (c.kind !== 'place' || c.place.status !== 'live' || !c.place.importedAt) continue;
      const g = await geocodeInPlace(ctx, c.place.geoDivisionId, parsed, await placeSource(ctx, c.place));
      if (g.kind === 'matched' && (g.matchType === 'address_table' || g.matchType === 'assessor_table') && g.confidence >= 0.8) holders.push(c.place);
    }
    if (holders.length === 1) {
      const p = holders[0]!;
      note = `"${parsed.city}" could mean ${r.candidates.map(candidateLabel).join(' or ')}; the address is in ${p.name}, ${p.region} by its own address data.`;
      r = { kind: 'place', place: p };
    } else {
      const line = `${parsed.number ? `${parsed.number}${parsed.numberSuffix ? `-${parsed.numberSuffix}` : ''} ` : ''}${parsed.street ?? ''}`.trim();
      return {
        kind: 'not_covered',
        coverage: {
          status: 'geo_division_uncatalogued',
          eligibilityKnown: false,
          message: `Could not tell which place this address is in: ${r.reason}. Candidates: ${r.candidates.map((c) => `${candidateLabel(c)} (${c.kind === 'place' ? c.place.status : 'unseeded_place'})`).join('; ')}. Add the municipality and the state or province.`,
        },
        suggestions: r.candidates.map((c) => `${line}, ${candidateLabel(c)}`),
      };
    }
  }
  if (r.kind === 'unknown') {
    // A misspelt city ("Cambrige") gets the known cities it may mean, as whole addresses to try.
    const line = `${parsed.number ? `${parsed.number}${parsed.numberSuffix ? `-${parsed.numberSuffix}` : ''} ` : ''}${parsed.street ?? ''}`.trim();
    const didYouMean = r.didYouMean?.length && line ? r.didYouMean.map((c) => `${line}, ${c}`) : [];
    return {
      kind: 'not_covered',
      coverage: {
        status: 'geo_division_uncatalogued',
        eligibilityKnown: false,
        message: didYouMean.length
          ? `Could not place this address in a known state, province or city (${r.reason}). Did you mean ${r.didYouMean!.slice(0, 3).join(' or ')}?`
          : `Could not place this address in a known state, province or city (${r.reason}). Add the city and the state or province, e.g. "57 Inman St, Cambridge, MA".`,
      },
      ...(didYouMean.length ? { suggestions: didYouMean } : {}),
    };
  }
  if (r.kind === 'gazetteer') {
    return {
      kind: 'not_covered',
      coverage: {
        status: 'unseeded_place',
        eligibilityKnown: true,
        message: `${r.name}, ${r.region} is a known place, but siteline holds no lot or zoning data for it yet, so this address is not covered.`,
        place: { name: r.name, region: r.region, country: r.country },
      },
    };
  }
  const place = r.place;
  const placeInfo = { name: place.name, region: place.region, country: place.country };
  if (place.status === 'live' && place.importedAt) return note ? { kind: 'covered', place, note } : { kind: 'covered', place };
  if (place.status === 'live' || place.status === 'live_unavailable') {
    // Being imported by this server's start right now: it answers as soon as the import commits.
    const loading = placeStillLoading(ctx.primaryDb ?? ctx.db, place.slug); // this process's start, also when read on a replica
    if (loading) return { kind: 'not_covered', place, coverage: stillLoadingCoverage(place, placeInfo, loading) };
    return {
      kind: 'not_covered',
      place,
      coverage: {
        status: 'live_unavailable',
        eligibilityKnown: true,
        geoDivisionId: place.geoDivisionId,
        place: placeInfo,
        message: `${place.name} is covered, but its data is not imported into this server, so addresses there cannot be answered (waiting will not help). The server's operator loads it with \`siteline data import ${place.slug} --from DIR\` (DIR holds the place folders), or by setting SITELINE_SOURCE_DIR=DIR and restarting.`,
      },
    };
  }
  return {
    kind: 'not_covered',
    place,
    coverage: {
      status: place.status === 'planned_not_live' ? 'planned_not_live' : 'unseeded_place',
      eligibilityKnown: true,
      geoDivisionId: place.geoDivisionId,
      place: placeInfo,
      message:
        place.status === 'planned_not_live' && place.statusReason?.startsWith(JOINS_TOO_POOR)
          ? `${place.name} is not live: ${place.statusReason.replace(/^The place's data/, 'its data')}`
          : place.status === 'planned_not_live'
            ? `${place.name} is planned but not live: its zoning districts are catalogued, but it has no address or lot data, so addresses there cannot be answered yet.`
            : `${place.name} is catalogued but has no data seeded.`,
    },
  };
}
