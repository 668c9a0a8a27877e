import { createPlacesDb } from '../test/support/harness.ts';
import { geocodeInPlace } from '../src/geocoder/geocode.ts';
import { parseAddress } from '../src/geocoder/parse-address.ts';
import { sqlSource } from '../src/geocoder/place-index.ts';
import { withoutAddress } from '../src/geocoder/calibration.ts';
const { db, close } = await createPlacesDb(['cambridge-ma']);
const [p] = await db.query<{ place_id: string }>(`SELECT place_id FROM places WHERE slug='cambridge-ma'`);
const placeId = p!.place_id;
const rows = await db.query<{ full_address: string; lots: string[] }>(`SELECT a.full_address, array_agg(DISTINCT a.parcel_ext_id) AS lots FROM addresses a JOIN parcels q ON q.place_id = a.place_id AND q.parcel_ext_id = a.parcel_ext_id WHERE a.place_id = $1 GROUP BY a.full_address ORDER BY a.full_address`, [placeId]);
const sql = sqlSource(db, placeId);
const out: [number, boolean, string][] = [];
for (const r of rows) {
  const held = await geocodeInPlace(db, placeId, parseAddress(`${r.full_address}, Cambridge, MA`), withoutAddress(sql, r.full_address));
  if (held.kind !== 'matched' || held.band !== 'assessor_far') continue;
  const ft = Number(/about ([\d,]+) ft/.exec(held.warnings.join(' '))?.[1]?.replace(/,/g, '') ?? NaN);
  out.push([ft, r.lots.includes(held.parcelExtId!), r.full_address]);
}
out.sort((a, b) => a[0] - b[0]);
console.log(rows.length, out.length, out.filter((o) => o[1]).length);
for (const lim of [150, 200, 300, 400, 500, 700]) { const f = out.filter((o) => o[0] >= lim); console.log(`>= ${lim} ft: ${f.filter((o) => o[1]).length}/${f.length}`); }
console.log(JSON.stringify(out.filter((o) => !o[1] || o[0] >= 400)));
await close();
