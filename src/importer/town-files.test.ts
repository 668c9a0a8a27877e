// Files as towns publish them: projected GeoJSON and CSV x/y, one-line addresses, no header,
// Windows-1252; address -> lot by id or by point; the go-live thresholds; a rules file without ordinance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import proj4 from 'proj4';
import { crsDefinition, normaliseCrsName, projectorFor } from './readers/crs.ts';
import { parseGeoJson } from './readers/geojson.ts';
import { decodeText, detectEncoding } from './readers/text-encoding.ts';
import { readCsvRows } from './readers/csv.ts';
import { manifestSchema, parseManifest, type ManifestSource } from '../places/manifest.ts';
import { emptyPlaceRows, SourceTally, transformSource } from './transform-sources.ts';
import { joinGate } from './import-place.ts';
import { joinRate } from '../places/import-report.ts';
import { placeRulesSchema } from '../core/rules-schema.ts';

const UTM19N = '+proj=utm +zone=19 +datum=NAD83 +units=m +no_defs';
const toLonLat = (p: [number, number]) => proj4(UTM19N, 'EPSG:4326').forward(p) as [number, number];

test('crs: EPSG names and URNs normalise; UTM zones are built; an unknown code says what to declare', () => {
  assert.equal(normaliseCrsName('urn:ogc:def:crs:EPSG::2249'), 'EPSG:2249');
  assert.equal(normaliseCrsName('urn:ogc:def:crs:OGC:1.3:CRS84'), 'CRS84');
  assert.deepEqual(crsDefinition('EPSG:26919'), { def: UTM19N });
  // A State Plane code by number, from the EPSG registry (epsg-index): NAD83 / Massachusetts Mainland (ftUS).
  assert.match((crsDefinition('EPSG:2249') as { def: string }).def, /^\+proj=lcc .*\+units=us-ft/);
  const [mx, my] = projectorFor('urn:ogc:def:crs:EPSG::2249', 'x')([763_000, 2_960_000]);
  assert.ok(Math.abs(mx - -71.1) < 0.05 && Math.abs(my - 42.37) < 0.05, `${mx}, ${my}`);
  // A code the registry does not hold is refused with the code named.
  assert.match((crsDefinition('EPSG:999999') as { problem: string }).problem, /^EPSG:999999 is not a code in the EPSG registry/);
  assert.throws(() => projectorFor('EPSG:999999', 'zoning.geojson'), /zoning\.geojson: EPSG:999999 is not a code in the EPSG registry/);
  const [lon, lat] = projectorFor('EPSG:32619', 'x')([330_000, 4_690_000]);
  assert.ok(Math.abs(lon - -71.04) < 0.05 && Math.abs(lat - 42.34) < 0.05, `${lon}, ${lat}`);
  // A state-plane CRS in US feet declared as a proj4 string (what epsg.io gives for EPSG:2249).
  const sp =
    '+proj=lcc +lat_0=41 +lon_0=-71.5 +lat_1=42.6833333333333 +lat_2=41.7166666666667 +x_0=200000.0001016 +y_0=750000 +datum=NAD83 +units=us-ft +no_defs';
  const [x, y] = projectorFor(sp, 'x')([763_000, 2_960_000]);
  assert.ok(Math.abs(x - -71.1) < 0.05 && Math.abs(y - 42.37) < 0.05, `${x}, ${y}`);
});

test('geojson: a crs member is followed, a declared crs wins, projected coordinates without a CRS are refused with their range', () => {
  const square = [
    [330_000, 4_690_000],
    [330_020, 4_690_000],
    [330_020, 4_690_040],
    [330_000, 4_690_000],
  ];
  const doc = (crs?: string) =>
    JSON.stringify({
      type: 'FeatureCollection',
      ...(crs ? { crs: { type: 'name', properties: { name: crs } } } : {}),
      features: [{ type: 'Feature', properties: { PIN: '1' }, geometry: { type: 'Polygon', coordinates: [square] } }],
    });
  const a = parseGeoJson(doc('urn:ogc:def:crs:EPSG::26919'), 'a.geojson');
  const [lon, lat] = (a[0]!.geometry!.coordinates as number[][][])[0]![0]!;
  assert.deepEqual(
    [lon, lat].map((v) => v!.toFixed(6)),
    toLonLat([330_000, 4_690_000]).map((v) => v.toFixed(6)),
  );
  assert.ok(parseGeoJson(doc(), 'b.geojson', 'EPSG:26919')[0]!.geometry);
  assert.throws(
    () => parseGeoJson(doc(), 'c.geojson'),
    /c\.geojson: coordinates run from \(330000, 4690000\) to \(330020, 4690040\), not lon\/lat degrees.*declare the source's "crs"/,
  );
  assert.throws(() => parseGeoJson(doc('EPSG:999999'), 'd.geojson'), /d\.geojson: EPSG:999999 is not a code in the EPSG registry/);
});

test('text: UTF-8 with and without a BOM, Windows-1252 detected; a headerless CSV has numbered columns', () => {
  const latin = Buffer.from('1,3 CAFÉ RD\n', 'latin1');
  assert.equal(detectEncoding(latin), 'windows-1252');
  assert.equal(decodeText(latin, 'auto'), '1,3 CAFÉ RD\n');
  assert.equal(decodeText(Buffer.from('\uFEFFa,b', 'utf8'), 'auto'), 'a,b');
  assert.equal(detectEncoding(Buffer.from('3 CAFÉ RD', 'utf8')), 'utf-8');
  const rows = [...readCsvRows('7,12 ELM ST\n8,14 ELM ST\n', { header: false })];
  assert.deepEqual(
    rows.map((r) => r.values),
    [
      { '1': '7', '2': '12 ELM ST' },
      { '1': '8', '2': '14 ELM ST' },
    ],
  );
});

function source(load: unknown, extra: Record<string, unknown> = {}): ManifestSource {
  const m = manifestSchema.parse({
    slug: 't',
    geoDivisionId: 'US-MA:t',
    name: 'T',
    region: 'MA',
    country: 'US',
    status: 'live',
    bbox: [0, 0, 1, 1],
    sourceFolder: 't',
    rulesFile: 'rules.json',
    sources: [
      { id: 'addresses', name: 'A', file: 'a.csv', sha256: '0'.repeat(64), vintage: 'v', licence: 'l', attribution: 'a', format: 'csv', ...extra, load },
    ],
  });
  return m.sources[0]!;
}

test('addresses: a one-line column is parsed; projected x/y reprojected; lots by id, by point, or the id then the point, with both rates', () => {
  const lot = (id: string, x: number) => {
    const ring = [
      [x, 4_690_000],
      [x + 20, 4_690_000],
      [x + 20, 4_690_040],
      [x, 4_690_040],
      [x, 4_690_000],
    ].map((p) => toLonLat(p as [number, number]));
    const lons = ring.map((p) => p[0]);
    const lats = ring.map((p) => p[1]);
    return {
      parcelExtId: id,
      geom: [[ring]],
      bbox: [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)] as [number, number, number, number],
      insideLon: 0,
      insideLat: 0,
      areaM2: 800,
      source: 'p',
      vintage: 'v',
    };
  };
  const csv =
    'ADDR,PIN,X,Y\n2 ELM ST,P1,330010,4690020\n4 ELM ST,,330030,4690020\n6 ELM ST,P1,330050,4690020\n8 ELM ST,P9,330070,4690070\nNO NUMBER ST,P1,330010,4690020\n';
  const run = (lotBy?: 'id' | 'point' | 'id_then_point') => {
    const s = source(
      { target: 'addresses', fields: { oneLine: 'ADDR', parcelId: 'PIN', lon: 'X', lat: 'Y' }, ...(lotBy ? { lotBy } : {}) },
      { crs: 'EPSG:26919' },
    );
    const rows = emptyPlaceRows();
    for (const [id, x] of [
      ['P1', 330_000],
      ['P2', 330_020],
      ['P3', 330_040],
    ] as const)
      rows.parcels.set(id, lot(id, x));
    const tally = new SourceTally(s);
    transformSource({ kind: 'rows', rows: [...readCsvRows(csv, { header: true })], project: projectorFor('EPSG:26919', 'a.csv') }, tally, rows);
    return { rows, tally };
  };
  const byId = run();
  assert.equal(byId.tally.rowsLoaded, 4);
  assert.deepEqual(
    byId.tally.report().rejects.map((r) => [r.reason, r.count]),
    [['one-line address has no house number', 1]],
  );
  assert.deepEqual(
    byId.rows.addresses.map((a) => [a.number, a.streetKey, a.parcelExtId]),
    [
      [2, 'ELM ST', 'P1'],
      [4, 'ELM ST', null],
      [6, 'ELM ST', 'P1'],
      [8, 'ELM ST', 'P9'],
    ],
  );
  assert.ok(Math.abs(byId.rows.addresses[0]!.lon! - toLonLat([330_010, 4_690_020])[0]) < 1e-9);
  const j = byId.rows.addressLots!;
  assert.equal(j.lotBy, 'id');
  assert.deepEqual([j.byId!.matched, j.byPoint!.matched, j.byId!.total, j.disagreements], [2, 3, 4, 1]); // 6 Elm St: id P1, point in P3
  assert.match(j.examples[0]!, /6 Elm St\): id P1, point in P3/);
  assert.deepEqual(
    run('point').rows.addresses.map((a) => a.parcelExtId),
    ['P1', 'P2', 'P3', null],
  );
  assert.deepEqual(
    run('id_then_point').rows.addresses.map((a) => a.parcelExtId),
    ['P1', 'P2', 'P1', null],
  );
  assert.throws(
    () => source({ target: 'addresses', fields: { number: 'N' } }),
    /either a one-line address column \(fields\.oneLine\) or both fields\.number and fields\.streetName/,
  );
});

test('go live: a live manifest passes only at its thresholds; planned places are not gated', () => {
  const m = parseManifest(
    JSON.stringify({
      slug: 't',
      geoDivisionId: 'US-MA:t',
      name: 'T',
      region: 'MA',
      country: 'US',
      status: 'live',
      bbox: [0, 0, 1, 1],
      sourceFolder: 't',
      rulesFile: 'rules.json',
      sources: [
        {
          id: 'z',
          name: 'Z',
          file: 'z.geojson',
          sha256: '0'.repeat(64),
          vintage: 'v',
          licence: 'l',
          attribution: 'a',
          format: 'geojson',
          load: { target: 'boundary' },
        },
      ],
    }),
    'm',
  );
  const rates = (a: [number, number], z: [number, number]) => ({
    addressToParcel: joinRate(...a),
    parcelToZone: joinRate(...z),
    addressToParcelToZone: joinRate(0, 0),
    parcelToOverlay: joinRate(0, 0),
  });
  assert.equal(joinGate(m, rates([90, 100], [95, 100]))!.passed, true);
  const low = joinGate(m, rates([0, 51], [95, 100]))!;
  assert.equal(low.passed, false);
  assert.deepEqual(low.problems, ['address -> lot is 0.00 % (0 of 51), below 90 % (manifest joinThresholds.addressToLot = 0.9 (the default))']);
  assert.deepEqual(joinGate(m, rates([0, 0], [0, 0]))!.problems, [
    'address -> lot: no addresses were loaded, so no address can find its lot',
    'lot -> zone: no lots were loaded',
  ]);
  assert.equal(joinGate({ ...m, joinThresholds: { addressToLot: 0.5 } }, rates([60, 100], [99, 100]))!.passed, true);
  assert.equal(joinGate({ ...m, status: 'planned_not_live' }, rates([0, 1], [0, 1])), undefined);
});

test('rules: a town without ordinance text needs no bylaw URL, but must say why', () => {
  const rules = (bylaw: unknown) =>
    placeRulesSchema.safeParse({
      slug: 't',
      country: 'US',
      bylaw,
      districts: { 'R-1': { name: 'R-1', standards: {}, otherStandards: { status: 'not_extracted', note: 'No ordinance was read.' }, uses: [] } },
    });
  assert.equal(rules({ name: 'T zoning ordinance', date: 'not read', note: 'No ordinance text was read.' }).success, true);
  const bare = rules({ name: 'T zoning ordinance', date: 'not read' });
  assert.equal(bare.success, false);
  assert.match(JSON.stringify(bare.error?.issues), /a bylaw without a url needs a note/);
});

test('data init inspection: a headerless UTF-8-with-BOM CSV in lon/lat, TopoJSON parcels, zoning by name; keys ranked by overlap', async () => {
  const { inspectSourceDir } = await import('./inspect-source.ts');
  const { draftPlace } = await import('./draft-place.ts');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-inspect-'));
  try {
    const lon0 = -71.1;
    const lat0 = 42.3;
    const d = 0.0002;
    const arcs: number[][][] = [];
    const geometries = [];
    const lines: string[] = [];
    for (let i = 0; i < 8; i++) {
      const x = lon0 + i * d;
      arcs.push([
        [x, lat0],
        [x + d, lat0],
        [x + d, lat0 + d],
        [x, lat0 + d],
        [x, lat0],
      ]);
      geometries.push({ type: 'Polygon', arcs: [[i]], properties: { GIS_ID: `GIS-${100 + i}`, OBJECTID: i + 1 } });
      // columns: row id, one-line address, lon, lat, lot id (one row without, one with a stray id)
      lines.push([i + 1, `${10 + 2 * i} Main St`, (x + d / 2).toFixed(6), (lat0 + d / 2).toFixed(6), i === 7 ? '' : `GIS-${100 + i}`].join(','));
    }
    fs.writeFileSync(
      path.join(dir, 'parcels.topojson'),
      JSON.stringify({ type: 'Topology', arcs, objects: { lots: { type: 'GeometryCollection', geometries } } }),
    );
    const zone = (code: string, x0: number, x1: number) => ({
      type: 'Feature',
      properties: { DISTRICT: code },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [x0, lat0 - d],
            [x1, lat0 - d],
            [x1, lat0 + 2 * d],
            [x0, lat0 + 2 * d],
            [x0, lat0 - d],
          ],
        ],
      },
    });
    fs.writeFileSync(
      path.join(dir, 'districts.geojson'),
      JSON.stringify({ type: 'FeatureCollection', features: [zone('SF', lon0 - d, lon0 + 4 * d), zone('MU', lon0 + 4 * d, lon0 + 9 * d)] }),
    );
    fs.writeFileSync(path.join(dir, 'addresses.csv'), '\uFEFF' + lines.join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'README.txt'), 'Downloaded from the town portal.\n');
    const ins = await inspectSourceDir(dir);
    const csv = ins.roles.addresses!;
    assert.equal(csv.file, 'addresses.csv');
    assert.deepEqual([csv.encoding, csv.csv], ['utf-8', { header: false, delimiter: ',' }]);
    assert.deepEqual(csv.xy, { x: '3', y: '4' });
    assert.equal(ins.address?.oneLine, '2');
    assert.equal(ins.roles.parcels?.object, 'lots');
    assert.equal(ins.roles.zoning?.file, 'districts.geojson');
    assert.deepEqual(ins.zoneField?.codes, ['MU', 'SF']);
    assert.deepEqual(
      ins.joinKeys.map((k) => [k.addressField, k.parcelField, k.matched, k.total]),
      [['5', 'GIS_ID', 7, 8]],
    ); // row ids are never offered
    assert.deepEqual([ins.pointInParcel?.matched, ins.disagreements, ins.lotBy?.mode], [8, 0, 'point']);
    assert.deepEqual([ins.lotToZone?.matched, ins.lotToZone?.total], [8, 8]);
    assert.ok(!ins.layers.some((l) => l.file === 'README.txt'));
    const { manifest } = draftPlace(ins, { slug: 'x-ma', name: 'X', region: 'MA', country: 'US' });
    const addresses = (manifest['sources'] as { id: string; load: { fields: Record<string, string>; lotBy?: string } }[]).find((s) => s.id === 'addresses')!;
    // The town's own lot id is kept although the point join finds the lots (the audit checks one against the other).
    assert.deepEqual(addresses.load, { target: 'addresses', fields: { oneLine: '2', parcelId: '5', lon: '3', lat: '4' }, lotBy: 'point' });
    assert.equal(manifest['status'], 'live');
    parseManifest(JSON.stringify(manifest), 'drafted');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('data init inspection: OZFS files (.zoning, .parcel) are read as OZFS (parcels from their labelled edges); a LICENSE is not listed as skipped', async () => {
  const { inspectSourceDir } = await import('./inspect-source.ts');
  const path = await import('node:path');
  const ins = await inspectSourceDir(path.resolve(import.meta.dirname, '../../../shared/data/paradise-tx-ozfs'));
  const zoning = ins.layers.find((l) => l.file === 'Paradise.zoning');
  assert.ok(zoning, JSON.stringify(ins.skipped));
  assert.equal(zoning.format, 'ozfs-zoning');
  assert.equal(zoning.rows, 7);
  assert.equal(ins.layers.find((l) => l.file === 'Paradise.parcel')?.format, 'ozfs-parcel');
  assert.ok(ins.layers.some((l) => l.file === 'Paradise.parcel'));
  assert.deepEqual(
    ins.skipped.filter((s) => /Paradise|LICENSE/.test(s.file)),
    [],
  );
});
