// A row of square test lots along 42.37° N from -71.1° E, 0.0005° on a side and 0.001° apart (gaps
// between them), as the importer's batch loaders take them: lot i is `L-<i>`; `more` adds or replaces
// fields of lot i.
import type { ParcelRow } from '../../src/importer/load-tables.ts';

export function* squareLots(n: number, more: (i: number) => Partial<ParcelRow> = () => ({})): Generator<ParcelRow> {
  for (let i = 0; i < n; i++) {
    const x = -71.1 + i * 0.001;
    const y = 42.37;
    yield {
      parcelExtId: `L-${i}`,
      geom: [
        [
          [
            [x, y],
            [x + 0.0005, y],
            [x + 0.0005, y + 0.0005],
            [x, y + 0.0005],
            [x, y],
          ],
        ],
      ],
      bbox: [x, y, x + 0.0005, y + 0.0005],
      insideLon: x + 0.00025,
      insideLat: y + 0.00025,
      areaM2: 1700,
      source: 'test',
      vintage: '2026',
      ...more(i),
    };
  }
}
