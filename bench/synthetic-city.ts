// A SYNTHETIC city for the benchmark only: generated here, loaded into a throwaway database through
// the importer's own batch loaders and lot derivation, never shipped as a place. Its districts reuse
// Chicago's district codes so that the envelope does real work; its rules file is Chicago's with the
// slug rewritten, in a temporary places directory.
import fs from 'node:fs';
import path from 'node:path';
import { offsetM, bboxOf, type MultiPolygonCoords, type Position } from '../src/core/geo/primitives.ts';
import {
  analyzePlaceTables,
  withIndexesDeferred,
  insertAddresses,
  insertStreetSegments,
  insertZones,
  type AddressRow,
  type ParcelRow,
  type StreetSegmentRow,
  type ZoneRow,
} from '../src/importer/load-tables.ts';
import { insertLotsWithFacts } from '../src/importer/load-lots.ts';
import { streetKeyFromParts, displayStreet } from '../src/geocoder/street-key.ts';
import type { Db } from '../src/db/database.ts';
import { REPO_PLACES_DIR } from '../src/config.ts';
import { placeNameKeys } from '../src/places/catalogue.ts';

export const SYNTHETIC_PLACE_ID = 'US-KS:synthetic-bench';
export const SYNTHETIC_SLUG = 'synthetic-bench';
export const SYNTHETIC_CITY = 'Synthetic Bench City';

// Layout: blocks of 2 rows x LOTS_PER_ROW lots, each lot LOT_W m wide and LOT_D m deep, one street
// along the north side of the north row and one along the south side of the south row.
const LOT_W = 15;
const LOT_D = 30;
const LOTS_PER_ROW = 20;
const ROAD = 15;
const ORIGIN: Position = [-98.6, 38.2];
const DISTRICTS = ['RS-3', 'RT-4', 'RM-5', 'B3-2', 'C1-2', 'M1-2', 'PD'];

export interface SyntheticLayout {
  parcels: number;
  blocksX: number;
  blocksY: number;
}

export function layoutFor(targetParcels: number): SyntheticLayout {
  const perBlock = 2 * LOTS_PER_ROW;
  const blocks = Math.ceil(targetParcels / perBlock);
  const blocksX = Math.ceil(Math.sqrt(blocks * 4)); // wider than tall: blocks are long east-west
  const blocksY = Math.ceil(blocks / blocksX);
  return { parcels: blocksX * blocksY * perBlock, blocksX, blocksY };
}

const BLOCK_W = LOTS_PER_ROW * LOT_W + ROAD;
const BLOCK_H = 2 * LOT_D + ROAD;

// offsetM from ORIGIN moves lon by x alone and lat by y alone, and the grid repeats its x and y
// values, so each is computed once (the same doubles offsetM gives; generating a million lots twice
// is part of the timed import, and the trigonometry was a tenth of it).
const lonCache = new Map<number, number>();
const latCache = new Map<number, number>();
function at(x: number, y: number): Position {
  let lon = lonCache.get(x);
  if (lon === undefined) lonCache.set(x, (lon = offsetM(ORIGIN, x, 0)[0]));
  let lat = latCache.get(y);
  if (lat === undefined) latCache.set(y, (lat = offsetM(ORIGIN, 0, y)[1]));
  return [lon, lat];
}

function rect(x: number, y: number, w: number, h: number): MultiPolygonCoords {
  const a = at(x, y);
  return [[[a, at(x + w, y), at(x + w, y + h), at(x, y + h), [a[0], a[1]]]]];
}

/** Street running along the south (row 'S') or north ('N') side of block row by (memoised: one per row). */
const streetNames = new Map<number, { key: string; display: string }>();
function streetName(by: number, side: 'S' | 'N'): { key: string; display: string } {
  const n = by * 2 + (side === 'N' ? 1 : 0);
  let s = streetNames.get(n);
  if (!s) {
    const key = streetKeyFromParts({ name: `ROW ${n}`, type: 'ST' });
    s = { key, display: displayStreet(key) };
    streetNames.set(n, s);
  }
  return s;
}

function* parcels(l: SyntheticLayout): Generator<ParcelRow> {
  for (let by = 0; by < l.blocksY; by++)
    for (let bx = 0; bx < l.blocksX; bx++)
      for (let row = 0; row < 2; row++)
        for (let i = 0; i < LOTS_PER_ROW; i++) {
          const x = bx * BLOCK_W + i * LOT_W;
          const y = by * BLOCK_H + ROAD / 2 + row * LOT_D;
          const geom = rect(x, y, LOT_W, LOT_D);
          const inside = at(x + LOT_W / 2, y + LOT_D / 2);
          // A rectangle's box is its south-west and north-east corners (what bboxOf finds, without the walk).
          const sw = geom[0]![0]![0]!;
          const ne = geom[0]![0]![2]!;
          yield {
            parcelExtId: `S-${by}-${bx}-${row}-${i}`,
            geom,
            bbox: [sw[0], sw[1], ne[0], ne[1]],
            insideLon: inside[0],
            insideLat: inside[1],
            areaM2: LOT_W * LOT_D,
            source: 'synthetic',
            vintage: 'synthetic',
          };
        }
}

function* addresses(l: SyntheticLayout): Generator<AddressRow> {
  let rowNo = 0;
  for (let by = 0; by < l.blocksY; by++)
    for (let bx = 0; bx < l.blocksX; bx++)
      for (let row = 0; row < 2; row++)
        for (let i = 0; i < LOTS_PER_ROW; i++) {
          const st = streetName(by, row === 0 ? 'S' : 'N');
          // Even numbers on the north side of a street, odd on the south; 100 per block.
          const number = bx * 100 + i * 2 + (row === 0 ? 0 : 1) + 2;
          yield {
            rowNo: rowNo++,
            addressId: null,
            number,
            numberSuffix: '',
            streetKey: st.key,
            streetDisplay: st.display,
            unit: '',
            postcode: '',
            fullAddress: `${number} ${st.display}`,
            parcelExtId: `S-${by}-${bx}-${row}-${i}`,
            lon: null,
            lat: null,
          };
        }
}

function* segments(l: SyntheticLayout): Generator<StreetSegmentRow> {
  for (let by = 0; by < l.blocksY; by++)
    for (const side of ['S', 'N'] as const) {
      const st = streetName(by, side);
      const y = by * BLOCK_H + (side === 'S' ? ROAD / 4 : ROAD / 2 + 2 * LOT_D + ROAD / 4);
      for (let bx = 0; bx < l.blocksX; bx++) {
        const geom = [offsetM(ORIGIN, bx * BLOCK_W, y), offsetM(ORIGIN, (bx + 1) * BLOCK_W, y)];
        const lo = bx * 100 + 2;
        const hi = bx * 100 + 2 * LOTS_PER_ROW;
        // Left of an eastbound line is north.
        const north = side === 'S' ? [lo, hi] : [null, null];
        const south = side === 'N' ? [lo + 1, hi + 1] : [null, null];
        yield {
          segmentId: `${st.key}-${bx}`,
          streetKey: st.key,
          streetDisplay: st.display,
          lFrom: north[0] ?? null,
          lTo: north[1] ?? null,
          rFrom: south[0] ?? null,
          rTo: south[1] ?? null,
          zipLeft: null,
          zipRight: null,
          geom,
          bbox: bboxOf(geom),
        };
      }
    }
}

function* zones(l: SyntheticLayout): Generator<ZoneRow> {
  const nx = 20;
  const ny = 10;
  const w = (l.blocksX * BLOCK_W) / nx;
  const h = (l.blocksY * BLOCK_H) / ny;
  let k = 0;
  for (let j = 0; j < ny; j++)
    for (let i = 0; i < nx; i++) {
      const geom = rect(i * w, j * h, w, h);
      const code = DISTRICTS[k++ % DISTRICTS.length]!;
      yield { zoneId: `z-${i}-${j}`, layer: 'base', code, name: null, geom, bbox: bboxOf(geom) };
    }
}

/**
 * A temporary places directory holding the synthetic place: Chicago's rules (slug rewritten) and, so
 * that its answers carry citations that verify, three RS-3 standards cited from a document the place
 * holds: it declares the Somerville Zoning Ordinance (its source folder is Somerville's) and quotes the
 * Detached House table (§3.1.8). Synthetic, like the city: real words, borrowed values.
 */
export function writeSyntheticPlacesDir(dir: string): string {
  const rules = JSON.parse(fs.readFileSync(path.join(REPO_PLACES_DIR, 'chicago-il', 'rules.json'), 'utf8')) as {
    slug: string;
    notes: string[];
    districts: Record<string, { standards: Record<string, unknown> }>;
  };
  rules.slug = SYNTHETIC_SLUG;
  rules.notes = [
    ...rules.notes,
    'Synthetic place (bench and tests): RS-3 lot coverage, storeys and rear yard are cited from the Somerville Zoning Ordinance §3.1.8, which this place holds.',
  ];
  const cite = (quote: string) => ({ document: 'szo', section: '3.1.8', quote });
  // The citation checker reads a district's values in its own section of the held document (docs/data.md): RS-3 declares §3.1.8.
  Object.assign(rules.districts['RS-3']!, { section: '3.1.8' });
  Object.assign(rules.districts['RS-3']!.standards, {
    maxLotCoveragePct: { status: 'cited', value: 60, citation: cite('Lot Coverage (max) | 60%') },
    maxHeightStoreys: { status: 'cited', value: 2.5, citation: cite('Number of Stories (max) | 2.5') },
    minRearYardFt: { status: 'cited', value: 20, citation: cite('Rear Setback (min) | 20 ft') },
  });
  fs.mkdirSync(path.join(dir, SYNTHETIC_SLUG), { recursive: true });
  fs.writeFileSync(path.join(dir, SYNTHETIC_SLUG, 'rules.json'), JSON.stringify(rules));
  fs.writeFileSync(path.join(dir, SYNTHETIC_SLUG, 'manifest.json'), JSON.stringify(SYNTHETIC_MANIFEST));
  return dir;
}

/** A catalogue manifest for the synthetic place (never written to places/). */
const SYNTHETIC_MANIFEST = {
  slug: SYNTHETIC_SLUG,
  geoDivisionId: SYNTHETIC_PLACE_ID,
  name: SYNTHETIC_CITY,
  region: 'KS',
  country: 'US',
  aliases: [],
  status: 'live',
  bbox: [0, 0, 0, 0],
  sourceFolder: 'somerville-ma',
  rulesFile: 'rules.json',
  defaultImport: false,
  sources: [
    {
      id: 'parcels',
      name: 'SYNTHETIC parcels (bench only)',
      file: 'none',
      sha256: '0'.repeat(64),
      vintage: 'synthetic',
      licence: 'none',
      attribution: 'generated by bench/synthetic-city.ts',
      format: 'geojson',
      load: { target: 'parcels', idField: 'parcel_id' },
    },
  ],
  documents: [
    {
      id: 'szo',
      file: 'ordinance/somerville-zoning.md',
      sha256: '4fff5d66b823f2bccde6783db74144e4112c13f7b5526e68d3c0bea28afb9ac6',
      role: 'ordinance text (the synthetic place borrows its words)',
      title: 'Somerville Zoning Ordinance',
      format: 'markdown',
      edition: 'as published on enCodePlus on 2026-03-06',
      retrieved: '2026-03-06',
      licence: 'MIT (r00k/somerville-ordinances)',
      url: 'https://online.encodeplus.com/regs/somerville-ma/doc-viewer.aspx#secid--1',
    },
  ],
};

/** Where a load's time went: seconds from its start when the addresses and the parcels were in, and each index build. */
export interface LoadPhases {
  addressesDoneS: number;
  parcelsDoneS: number;
  indexBuildsS: Record<string, number>;
  /** The statistics gathered after the load (analyzePlaceTables), seconds. */
  analyzeS: number;
}

/** Loads the synthetic city the way the importer loads a place: lot facts in memory, then batched loads. */
export async function loadSyntheticCity(
  db: Db,
  targetParcels: number,
  onProgress?: (m: string) => void,
): Promise<{ parcels: number; addresses: number; phases: LoadPhases }> {
  const t0 = performance.now();
  const phases: LoadPhases = { addressesDoneS: 0, parcelsDoneS: 0, indexBuildsS: {}, analyzeS: 0 };
  const l = layoutFor(targetParcels);
  const bbox = bboxOf([offsetM(ORIGIN, 0, 0), offsetM(ORIGIN, l.blocksX * BLOCK_W, l.blocksY * BLOCK_H)]);
  await db.query(
    `INSERT INTO places (place_id, slug, name, region, country, status, aliases, bbox, manifest, imported_at, name_keys)
     VALUES ($1, $2, $3, 'KS', 'US', 'live', '[]', $4::box, $5::jsonb, now(), $6::text[])`,
    [
      SYNTHETIC_PLACE_ID,
      SYNTHETIC_SLUG,
      SYNTHETIC_CITY,
      `(${bbox[2]},${bbox[3]}),(${bbox[0]},${bbox[1]})`,
      JSON.stringify(SYNTHETIC_MANIFEST),
      placeNameKeys(SYNTHETIC_CITY, []),
    ],
  );
  const every = (what: string) => (n: number) => {
    if (n % 200_000 === 0) onProgress?.(`${what}: ${n.toLocaleString('en-US')}`);
  };
  onProgress?.('lot facts and parcels');
  let addressesLoaded = 0;
  const parcelsLoaded = await withIndexesDeferred(
    db,
    ['parcels', 'zones', 'street_segments', 'addresses'],
    async () => {
      const lots = await insertLotsWithFacts(db, SYNTHETIC_PLACE_ID, { parcels: parcels(l), zones: zones(l), streets: segments(l) }, parcels(l), {
        onBatch: every('parcels'),
        deriveIn: 'worker',
        // While the worker indexes the lots, the main thread loads everything that does not need them.
        meanwhile: async () => {
          await insertStreetSegments(db, SYNTHETIC_PLACE_ID, segments(l));
          await insertZones(db, SYNTHETIC_PLACE_ID, zones(l));
          addressesLoaded = await insertAddresses(db, SYNTHETIC_PLACE_ID, addresses(l), { batchSize: 10000, onBatch: every('addresses') });
          phases.addressesDoneS = (performance.now() - t0) / 1000;
        },
      });
      phases.parcelsDoneS = (performance.now() - t0) / 1000;
      return lots.parcels;
    },
    (index, ms) => (phases.indexBuildsS[index] = ms / 1000),
  );
  const t1 = performance.now();
  await analyzePlaceTables(db); // as the importer does after its load
  phases.analyzeS = (performance.now() - t1) / 1000;
  return { parcels: parcelsLoaded, addresses: addressesLoaded, phases };
}

/** A deterministic sample of synthetic addresses as a person would type them. */
export function sampleSyntheticAddresses(targetParcels: number, n: number): string[] {
  const l = layoutFor(targetParcels);
  const out: string[] = [];
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let k = 0; k < n; k++) {
    const by = Math.floor(rnd() * l.blocksY);
    const bx = Math.floor(rnd() * l.blocksX);
    const row = rnd() < 0.5 ? 0 : 1;
    const i = Math.floor(rnd() * LOTS_PER_ROW);
    const number = bx * 100 + i * 2 + row + 2;
    out.push(`${number} Row ${by * 2 + row} St, ${SYNTHETIC_CITY}, KS`);
  }
  return out;
}
