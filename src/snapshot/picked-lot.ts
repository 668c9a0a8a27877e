// The lot the caller picks (issue 49, item 6): when an address matches weakly (550 Memorial Dr at 0.45),
// the person names the lot by its id (the snapshot's lot.parcelExternalId, the assessor's id; on the
// web page typed in or clicked on the map) and the same getFeasibilitySnapshot answers for that lot,
// the lot the spec's attach_parcels takes by the same id. The place is still the address's; the match
// says what the pick changed: matchType `lot_id`, confidence 1 (the person chose it), and a first
// warning naming the lot the address alone matched and how surely. No HTTP here.
import { SitelineError } from '../core/errors.ts';
import type { GeocodeResult } from '../geocoder/geocode.ts';
import type { PlaceRecord } from '../places/catalogue.ts';
import type { MatchType } from '../core/snapshot-types.ts';

/** Longest lot id accepted (assessor ids are short: "190-12", "1-2-3A"). */
export const LOT_ID_MAX_LENGTH = 40;

/** The id as given, trimmed; refused when it cannot be an id. */
export function cleanLotId(raw: string): string {
  const id = raw.trim();
  if (!id || id.length > LOT_ID_MAX_LENGTH || !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(id)) {
    throw new SitelineError('bad_input', `A lot id is 1 to ${LOT_ID_MAX_LENGTH} visible characters, as the snapshot shows it under "Lot id" (e.g. 190-12).`);
  }
  return id;
}

/** The refusal when the place holds no lot of that id. */
export function noSuchLot(place: PlaceRecord, id: string): SitelineError {
  return new SitelineError(
    'bad_input',
    `${place.name}, ${place.region} has no lot "${id}" in its parcel layer. Use the lot id as the snapshot shows it under "Lot id" (the assessor's id), or click the lot on the map.`,
  );
}

/** A geocoder match with the snapshot's own match types (`lot_id` among them). */
type Matched = Omit<Extract<GeocodeResult, { kind: 'matched' }>, 'matchType'> & { matchType: MatchType };

/** The match to answer with: the picked lot, and in words what the address alone gave. */
export function pickedMatch(id: string, geocoded: GeocodeResult, input: string): Matched {
  const matched = geocoded.kind === 'matched' ? geocoded : null;
  const before = !matched
    ? `The address alone matched no lot (${geocoded.kind === 'failed' ? geocoded.reason : 'no lot'}).`
    : matched.parcelExtId === id
      ? `The address alone matched this same lot, with confidence ${matched.confidence}; you confirmed it.`
      : `The address alone matched lot ${matched.parcelExtId ?? '(none)'}, with confidence ${matched.confidence}; the lot, its measurements, districts and envelope here are lot ${id}'s instead.`;
  return {
    kind: 'matched',
    matchType: 'lot_id',
    confidence: 1,
    matchedAddress: matched?.matchedAddress ?? input,
    streetKey: matched?.streetKey ?? '',
    parcelExtId: id,
    point: null,
    warnings: [`You picked lot ${id}. ${before}`],
  };
}
