// Builds test/golden/cambridge-addresses.json straight from the source files, without the importer,
// the geocoder or the database: the lot is the address table's MapLot, the zone is the district
// polygon holding every vertex of that lot. Only lots wholly inside one district are kept, so the
// expected primary zone is unambiguous. Run: node --import tsx scripts/build-golden.ts
// The geometry here is its own (a winding-number test written below), not src/core/geo's ray-crossing
// primitives: the golden file checks siteline's geometry, so it must not be computed by it.
import fs from 'node:fs';
import path from 'node:path';
import { feature } from 'topojson-client';

type Position = [number, number];
type MultiPolygonCoords = Position[][][];
interface Geometry {
  type: string;
  coordinates?: unknown;
  geometries?: Geometry[];
}

/** Polygon, MultiPolygon or a collection of them as MultiPolygon coordinates; null for anything else. */
function toMultiPolygon(g: Geometry | null | undefined): MultiPolygonCoords | null {
  if (!g) return null;
  if (g.type === 'Polygon') return [g.coordinates as Position[][]];
  if (g.type === 'MultiPolygon') return g.coordinates as MultiPolygonCoords;
  if (g.type === 'GeometryCollection') {
    const parts = (g.geometries ?? []).flatMap((x) => toMultiPolygon(x) ?? []);
    return parts.length ? parts : null;
  }
  return null;
}

/** Winding number of a ring around p (Sunday's method): non-zero means p is inside the ring. */
function windingNumber(p: Position, ring: Position[]): number {
  let wn = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i]!;
    const b = ring[(i + 1) % ring.length]!;
    const side = (b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1]); // > 0: p left of a->b
    if (a[1] <= p[1]) {
      if (b[1] > p[1] && side > 0) wn++;
    } else if (b[1] <= p[1] && side < 0) wn--;
  }
  return wn;
}

/** Inside the outer ring of some polygon and inside none of that polygon's holes. */
function pointInMultiPolygon(p: Position, mp: MultiPolygonCoords): boolean {
  return mp.some((poly) => poly.length > 0 && windingNumber(p, poly[0]!) !== 0 && poly.slice(1).every((hole) => windingNumber(p, hole) === 0));
}

const DATA = path.resolve(import.meta.dirname, '../../shared/data/cambridge-ma');
const OUT = process.env.GOLDEN_OUT ?? path.resolve(import.meta.dirname, '../test/golden/cambridge-addresses.json'); // GOLDEN_OUT: a test rebuilds it elsewhere

const csv = fs.readFileSync(path.join(DATA, 'Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv'), 'utf8').replace(/^\uFEFF/, '');
const rows = csv
  .split('\n')
  .filter(Boolean)
  .map((l) => l.split(','));

const topo = JSON.parse(fs.readFileSync(path.join(DATA, 'Assessing/FY2014/FY2014_Parcels/ASSESSING_ParcelsFY2014.topojson'), 'utf8'));
const fc = feature(topo, topo.objects.ASSESSING_ParcelsFY2014) as unknown as { features: { properties: { ML?: string }; geometry: never }[] };
const parcels = new Map<string, MultiPolygonCoords[]>();
for (const f of fc.features) {
  const ml = f.properties.ML;
  const mp = toMultiPolygon(f.geometry);
  if (!ml || !mp) continue;
  parcels.set(ml, [...(parcels.get(ml) ?? []), mp]);
}
const zoning = JSON.parse(fs.readFileSync(path.join(DATA, 'CDD/Zoning_Districts/CDD_ZoningDistricts.geojson'), 'utf8')) as {
  features: { properties: { ZONE_TYPE: string }; geometry: never }[];
};
const districts = zoning.features.map((f) => ({ code: f.properties.ZONE_TYPE, mp: toMultiPolygon(f.geometry)! }));

function zoneHoldingAll(vertices: Position[]): string | null {
  for (const d of districts) if (vertices.every((v) => pointInMultiPolygon(v, d.mp))) return d.code;
  return null;
}

// An address listed with two different lots is ambiguous: not golden.
const lotsByAddress = new Map<string, Set<string>>();
for (const r of rows) if (r[6]) lotsByAddress.set(r[6], (lotsByAddress.get(r[6]) ?? new Set()).add(r[9] ?? ''));

// Every 97th row (a stride prime to the table's street ordering), then a few hand-picked forms.
const golden: { address: string; parcelExternalId: string; zone: string }[] = [];
const seenStreets = new Set<string>();
for (let i = 0; i < rows.length && golden.length < 80; i += 97) {
  const r = rows[i]!;
  const full = r[6];
  const ml = r[9];
  if (!full || !ml || !parcels.has(ml) || lotsByAddress.get(full)!.size !== 1) continue;
  const parts = parcels.get(ml)!;
  if (parts.length !== 1) continue;
  // Shrink toward the lot so that vertices on the district line do not disqualify it.
  const verts = parts[0]!.flatMap((poly) => poly[0]!);
  const cx = verts.reduce((s, v) => s + v[0], 0) / verts.length;
  const cy = verts.reduce((s, v) => s + v[1], 0) / verts.length;
  const shrunk = verts.map((v): Position => [cx + (v[0] - cx) * 0.9, cy + (v[1] - cy) * 0.9]);
  const zone = zoneHoldingAll(shrunk);
  if (!zone) continue;
  const street = `${r[3]} ${r[4]}`;
  if (seenStreets.has(street) && golden.length > 40) continue;
  seenStreets.add(street);
  golden.push({ address: `${full}, Cambridge, MA`, parcelExternalId: ml, zone });
}
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(
  OUT,
  JSON.stringify(
    {
      builtBy: 'scripts/build-golden.ts',
      from: 'Address table (MapLot) + FY2014 parcels + 2026 zoning districts, without siteline code paths',
      addresses: golden,
    },
    null,
    2,
  ) + '\n',
);
console.log(`wrote ${golden.length} golden addresses to ${path.relative(process.cwd(), OUT)}`);
