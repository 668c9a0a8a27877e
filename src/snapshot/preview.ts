// A redacted, lot-level preview: is this address covered, why or why not, and were a lot and a zone
// found? No zoning values, no parcel id, no coordinates: it runs the snapshot pipeline's first steps only.
import { onReadReplica, type AppContext } from '../context.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import { resolveCoverage } from './coverage.ts';
import { locateAddress } from './locate.ts';
import type { Coverage, MatchType } from '../core/snapshot-types.ts';

export interface CoveragePreview {
  input: string;
  /** True when a full snapshot for this address would be answered. */
  covered: boolean;
  coverage: Coverage;
  lotFound: boolean;
  zoneFound: boolean;
  matchType: MatchType | null;
  confidence: number | null;
  suggestions?: string[];
  /** What the full snapshot adds (for a caller deciding whether to authenticate). */
  next: string;
}

const NEXT_COVERED = 'Call getFeasibilitySnapshot (sign-in required) for the lot, its zoning, permitted uses and the sourced envelope.';

/** The preview, read from a streaming replica when there are some (src/context.ts onReadReplica). */
export function previewSiteCoverage(ctx: AppContext, address: string): Promise<CoveragePreview> {
  return onReadReplica(ctx, (readCtx) => previewOn(readCtx, address));
}

async function previewOn(ctx: AppContext, address: string): Promise<CoveragePreview> {
  const input = address.trim().replace(/\s+/g, ' ');
  const parsed = parseAddress(address);
  const cov = await resolveCoverage(ctx, parsed);
  if (cov.kind === 'not_covered') {
    return {
      input,
      covered: false,
      coverage: cov.coverage,
      lotFound: false,
      zoneFound: false,
      matchType: null,
      confidence: null,
      next: 'Nothing more is available for this address now.',
    };
  }
  const place = cov.place;
  const base = { geoDivisionId: place.geoDivisionId, place: { name: place.name, region: place.region, country: place.country } };
  const { src, match: g } = await locateAddress(ctx, place, parsed);
  if (g.kind === 'failed' || !g.parcelExtId) {
    return {
      input,
      covered: false,
      coverage: {
        status: 'geocode_failed',
        eligibilityKnown: true,
        ...base,
        message: `${place.name} is covered, but this address could not be matched to a lot with confidence.`,
      },
      lotFound: false,
      zoneFound: false,
      matchType: g.kind === 'matched' ? g.matchType : null,
      confidence: g.kind === 'matched' ? g.confidence : null,
      ...(g.kind === 'failed' && g.suggestions.length ? { suggestions: g.suggestions } : {}),
      next: 'Check the street name and number; the suggestions list nearby street names in this place.',
    };
  }
  const hasZone = await src.lotHasZone(g.parcelExtId);
  const lotFound = hasZone !== null;
  return {
    input,
    covered: lotFound,
    coverage: lotFound
      ? { status: 'live', eligibilityKnown: true, ...base, message: `${place.name} is covered and this address matched a lot.` }
      : {
          status: 'geocode_failed',
          eligibilityKnown: true,
          ...base,
          message: `${place.name} is covered, but the lot this address points to is not in the parcel layer.`,
        },
    lotFound,
    zoneFound: hasZone ?? false,
    matchType: g.matchType,
    confidence: g.confidence,
    next: lotFound ? NEXT_COVERED : 'Nothing more is available for this address now.',
  };
}
