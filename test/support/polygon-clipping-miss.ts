// The pair on which polygon-clipping 0.15.7 returned wrong rings without throwing (CI seed -1232685660,
// 2026-12-05): it put lot ∩ triangle at 102.10 m² where the truth is 46.34 m², and lot − triangle at
// 114.8 m² where the truth is 87.77 m². A 99-vertex star lot (radii in metres) and a triangle.
export type XY = [number, number];

export const MISS_RADII: number[] = [
  ...Array<number>(29).fill(5),
  21,
  17,
  24,
  21,
  8,
  7,
  7,
  6,
  6,
  6,
  6,
  5,
  6,
  5,
  6,
  5,
  6,
  5,
  7,
  6,
  20,
  ...Array<number>(49).fill(5),
];

export const MISS_TRIANGLE: XY[] = [
  [-9.000000000000005, -2.3923048454132623],
  [-8.999999999999996, 18.392304845413264],
  [4, 8],
];

/** The star ring of radii r_k at angles 2πk/n about the origin (how the property test builds its lots). */
export function starOfRadii(radii: number[]): XY[] {
  return radii.map((r, k) => [r * Math.cos((2 * Math.PI * k) / radii.length), r * Math.sin((2 * Math.PI * k) / radii.length)]);
}
