// A lot whose polygon and the assessor's land area disagree: said wherever the lot goes (the snapshot,
// a project's lot, its analysis, the report), since every figure computed from the area is uncertain.
import { SQFT_PER_M2 } from '../core/geo/primitives.ts';

const OPENING = 'The lot polygon measures ';
const CLOSING = 'so values that depend on lot area are uncertain.';

/** True for the sentence areaWarning words (the MCP summary finds it among an answer's warnings). */
export function isAreaWarning(text: string): boolean {
  return text.startsWith(OPENING) && text.endsWith(CLOSING);
}

/** A lot area further than this from the assessor's land area (relative to the latter) is warned about. */
export const AREA_DISAGREEMENT_WARN = 0.3;

/**
 * Lot area from the polygon against a land area a parcel-attribute source gives (Cambridge: the
 * assessor's LandArea, sq ft): more than 30 % apart, the polygon is probably a piece of the lot or of
 * another vintage, and everything computed from the area is uncertain. Both figures are given.
 */
export function areaWarning(parcel: { area_m2: number; attrs: Record<string, unknown> | null }): string | null {
  for (const [source, v] of Object.entries(parcel.attrs ?? {})) {
    const land = v && typeof v === 'object' ? (v as Record<string, unknown>)['landAreaSqft'] : undefined;
    if (typeof land !== 'number' || !Number.isFinite(land) || land <= 0) continue;
    const poly = parcel.area_m2 * SQFT_PER_M2;
    if (Math.abs(poly - land) / land <= AREA_DISAGREEMENT_WARN) continue;
    const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
    const pct = Math.round((Math.abs(poly - land) / land) * 100);
    return `${OPENING}${fmt(poly)} sq ft, but the ${source} table gives ${fmt(land)} sq ft of land (${pct} % apart): the polygon may be a piece of the lot or of another date, ${CLOSING}`;
  }
  return null;
}
