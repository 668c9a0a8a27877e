// A lot attached to a project in a place without a zoning map keeps the district (and building type)
// its caller stated, with the sentence saying so: the analysis applies that district's rules and the
// report prints the source (docs/projects.md, "A stated district"). Where a zoning layer gives the
// district, a stated one is not used and a warning says so.
import type { AppContext } from '../context.ts';
import { getPlace } from '../places/catalogue.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { resolveStatedDistrict, type StatedDistrict } from '../snapshot/stated-district.ts';
import { refuseStatedControlCharacters } from '../snapshot/stated-words.ts';
import type { LotSnapshot } from './project-lots.ts';

/** The lot with the stated district applied (a place without a zoning map), and what to warn about. */
export async function withStatedDistrict(ctx: AppContext, lot: LotSnapshot, stated: StatedDistrict): Promise<{ lot: LotSnapshot; warnings: string[] }> {
  refuseStatedControlCharacters(stated);
  const place = await getPlace(ctx, lot.geoDivisionId);
  if (!place) return { lot, warnings: [] };
  const said = Boolean(stated.district?.trim() || stated.buildingType?.trim() || stated.conditions?.length);
  if (place.districtSource !== 'stated') {
    return {
      lot,
      warnings: said
        ? [
            `Lot ${lot.parcelExternalId}: a district was stated, but ${place.name}'s zoning map is held: the lot's district is read from it, and the stated one is not used.`,
          ]
        : [],
    };
  }
  const rules = await loadPlaceRules(ctx, place.slug);
  const r = resolveStatedDistrict(place, rules, stated); // an unknown district or building type is bad input
  if (r.kind === 'needs') {
    return {
      lot,
      warnings: [
        `Lot ${lot.parcelExternalId}: ${r.choice.message} Attach it again with district (and buildingType) to apply its rules; until then the analysis has no district for it.`,
      ],
    };
  }
  const conditions = r.zones.districtSource?.conditions;
  const kept: LotSnapshot = {
    ...lot,
    districts: [{ layer: 'base', code: r.code, name: r.district.name, share: 1 }],
    statedDistrict: {
      code: r.code,
      name: r.district.name,
      buildingType: r.buildingType,
      statement: r.zones.districtSource!.statement,
      ...(conditions?.length ? { conditions } : {}),
    },
  };
  return { lot: kept, warnings: r.choice ? [`Lot ${lot.parcelExternalId}: ${r.choice.message}`] : [] };
}
