// The spatial readers on the real shared data (read only; nothing is copied).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readShapefile } from './shapefile.ts';
import { readTopoJson } from './topojson.ts';
import { readGeoJson } from './geojson.ts';
import { parseOzfsParcels, ringFromEdges } from './ozfs.ts';
import { bboxOf } from '../../core/geo/primitives.ts';

const DATA = path.resolve(import.meta.dirname, '../../../../shared/data');

test('shapefile: Saanich is reprojected from EPSG:3157 to lon/lat and its DBF read as cp1252', async () => {
  const d = path.join(DATA, 'saanich-bc');
  const f = await readShapefile(path.join(d, 'Zoning.shp'), path.join(d, 'Zoning.dbf'), path.join(d, 'Zoning.prj'), 'windows-1252');
  assert.equal(f.length, 1813);
  const b = bboxOf(f.map((x) => x.geometry?.coordinates));
  // SOURCES.md: extent lon -123.477 to -123.261, lat 48.433 to 48.559
  assert.ok(Math.abs(b[0] - -123.477) < 0.002 && Math.abs(b[2] - -123.261) < 0.002, `lon ${b[0]}..${b[2]}`);
  assert.ok(Math.abs(b[1] - 48.433) < 0.002 && Math.abs(b[3] - 48.559) < 0.002, `lat ${b[1]}..${b[3]}`);
  assert.equal(f.filter((x) => x.properties['TYPE'] === null || x.properties['TYPE'] === '').length, 1);
});

test('topojson: Cambridge parcels decode to 13,116 lon/lat polygons', () => {
  const f = readTopoJson(path.join(DATA, 'cambridge-ma/Assessing/FY2014/FY2014_Parcels/ASSESSING_ParcelsFY2014.topojson'), 'ASSESSING_ParcelsFY2014');
  assert.equal(f.length, 13116);
  const b = bboxOf(f.map((x) => x.geometry?.coordinates));
  assert.ok(b[0] > -71.2 && b[2] < -71.0 && b[1] > 42.3 && b[3] < 42.45);
  assert.throws(
    () => readTopoJson(path.join(DATA, 'cambridge-ma/Assessing/FY2014/FY2014_Parcels/ASSESSING_ParcelsFY2014.topojson'), 'nope'),
    /no object "nope"/,
  );
});

test('geojson: gzipped Chicago zoning reads; a State Plane CRS is known by number (EPSG:2249); an unknown code is refused, naming it', () => {
  const f = readGeoJson(path.join(DATA, 'chicago-il/data/chicago-zoning-2025-04-17-simple.geojson.gz'), true);
  assert.equal(f.length, 14670);
  const tmp = fs.mkdtempSync(path.join(path.resolve(import.meta.dirname, '../../..'), '.siteline-test-geojson-'));
  try {
    const file = path.join(tmp, 'x.geojson');
    fs.writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'EPSG:2249' } }, features: [] }));
    assert.deepEqual(readGeoJson(file), []);
    fs.writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'EPSG:999999' } }, features: [] }));
    assert.throws(() => readGeoJson(file), /EPSG:999999/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('ozfs: Paradise parcels are 421 lots whose edges chain into closed rings', () => {
  const r = parseOzfsParcels(fs.readFileSync(path.join(DATA, 'paradise-tx-ozfs/Paradise.parcel'), 'utf8'), 'Paradise.parcel');
  assert.equal(r.featuresRead, 2382);
  assert.equal(r.parcels.length, 421);
  assert.equal(r.parcels.filter((p) => p.ring).length, 421);
  assert.equal(r.parcels.filter((p) => p.edges.some((e) => e.side === 'front')).length, 251);
});

test('ozfs: edges that do not close are reported, not forced', () => {
  const r = ringFromEdges([
    [
      [0, 0],
      [1, 0],
    ],
    [
      [1, 0],
      [1, 1],
    ],
  ]);
  assert.ok('problem' in r);
  const ok = ringFromEdges([
    [
      [0, 0],
      [1, 0],
    ],
    [
      [1, 1],
      [1, 0],
    ],
    [
      [1, 1],
      [0, 0],
    ],
  ]);
  assert.ok('ring' in ok && ok.ring.length === 4);
});
