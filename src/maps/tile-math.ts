// Web-Mercator tile arithmetic (the XYZ scheme MapLibre requests): tile -> lon/lat box and back.
import type { BBox } from '../core/geo/primitives.ts';

export const MAX_TILE_ZOOM = 16;

export interface TileKey {
  z: number;
  x: number;
  y: number;
}

const lonOf = (x: number, z: number): number => (x / 2 ** z) * 360 - 180;
const latOf = (y: number, z: number): number => {
  const n = Math.PI - (2 * Math.PI * y) / 2 ** z;
  return (180 / Math.PI) * Math.atan(0.5 * (Math.exp(n) - Math.exp(-n)));
};

/** The tile's [west, south, east, north], grown by `margin` (a fraction of the tile) on each side. */
export function tileBBox({ z, x, y }: TileKey, margin = 0): BBox {
  return [lonOf(x - margin, z), latOf(y + 1 + margin, z), lonOf(x + 1 + margin, z), latOf(y - margin, z)];
}

/** The tile holding a point at zoom z. */
export function tileAt(lon: number, lat: number, z: number): TileKey {
  const n = 2 ** z;
  const x = Math.min(n - 1, Math.max(0, Math.floor(((lon + 180) / 360) * n)));
  const r = (lat * Math.PI) / 180;
  const y = Math.min(n - 1, Math.max(0, Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)));
  return { z, x, y };
}

/** A valid tile key from URL segments, or null (bad numbers, out of range, beyond MAX_TILE_ZOOM). */
export function parseTileKey(z: string, x: string, y: string): TileKey | null {
  if (![z, x, y].every((s) => /^\d{1,8}$/.test(s))) return null;
  const k = { z: Number(z), x: Number(x), y: Number(y) };
  if (k.z > MAX_TILE_ZOOM || k.x >= 2 ** k.z || k.y >= 2 ** k.z) return null;
  return k;
}
