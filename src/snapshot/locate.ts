// The second step: the address matched inside its place, with the confidence the place's audit measured
// for the method that matched it (src/geocoder/calibration.ts). The snapshot and the preview share it.
import type { AppContext } from '../context.ts';
import type { ParsedAddress } from '../geocoder/parse-address.ts';
import { geocodeInPlace } from '../geocoder/geocode.ts';
import { calibrateMatch, placeCalibration } from '../geocoder/calibration.ts';
import { placeSource } from '../geocoder/place-index.ts';
import type { PlaceRecord } from '../places/catalogue.ts';

export async function locateAddress(ctx: AppContext, place: PlaceRecord, parsed: ParsedAddress) {
  const src = await placeSource(ctx, place);
  let match = await geocodeInPlace(ctx, place.geoDivisionId, parsed, src);
  // A stand-in method's score (or another suffix's address-table row's) becomes the share right the place's audit measured (src/geocoder/calibration.ts).
  if (match.kind === 'matched' && (match.matchType !== 'address_table' || match.band))
    match = calibrateMatch(match, await placeCalibration(ctx, place.geoDivisionId));
  return { src, match };
}
