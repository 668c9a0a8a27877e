// The one shape every spatial reader yields, whatever the file format.
import type { GeoJsonGeometry } from '../../core/geo/primitives.ts';

export interface SourceFeature {
  /** 0-based position in the source file. */
  index: number;
  properties: Record<string, unknown>;
  geometry: GeoJsonGeometry | null;
}
