// Vector tiles over the real HTTP server with Cambridge (live, parcels) and Chicago (zoning only):
// decoded with @mapbox/vector-tile, every feature carries only the properties TILE_LAYERS allows
// (geometry and district codes: nothing else leaves), layers appear at their zooms, caching is
// keyed so a 304 works, and bad tile addresses are refused as JSON.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { startTestServer, type TestServer } from './support/harness.ts';
import { TILE_LAYERS } from '../src/maps/tiles.ts';
import { tileAt, tileBBox } from '../src/maps/tile-math.ts';
import { ZONE_CATEGORIES, zoneCategory } from '../src/maps/zone-category.ts';

async function getTile(base: string, z: number, x: number, y: number, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/tiles/${z}/${x}/${y}.pbf`, { headers: { 'accept-encoding': 'gzip', ...headers } });
  const raw = Buffer.from(await res.arrayBuffer());
  return { res, raw };
}

function decode(raw: Buffer): VectorTile {
  // fetch undoes Content-Encoding itself; a still-gzipped body would start with 1f 8b.
  const bytes = raw[0] === 0x1f && raw[1] === 0x8b ? zlib.gunzipSync(raw) : raw;
  return new VectorTile(new PbfReader(bytes));
}

// 11 Acorn St (lot 97-120) lies near here.
const ACORN = { lon: -71.1077, lat: 42.3588 };

describe('vector tiles', () => {
  let svc: TestServer;
  before(async () => {
    svc = await startTestServer({ places: ['cambridge-ma', 'chicago-il'] });
  });
  after(async () => {
    await svc?.close();
  });

  test('a Cambridge tile at z16 holds parcels, zoning, streets and only the allowed properties', async () => {
    const { z, x, y } = tileAt(ACORN.lon, ACORN.lat, 16);
    const { res, raw } = await getTile(svc.url, z, x, y);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.mapbox-vector-tile');
    assert.match(res.headers.get('cache-control') ?? '', /public/);
    const tile = decode(raw);
    for (const name of ['parcels', 'zoning', 'streets']) assert.ok(tile.layers[name]?.length, `layer ${name} has features`);
    for (const [name, layer] of Object.entries(tile.layers)) {
      assert.ok(name in TILE_LAYERS, `unexpected layer ${name}`);
      const allowed = new Set<string>(TILE_LAYERS[name as keyof typeof TILE_LAYERS].properties);
      for (let i = 0; i < layer.length; i++) {
        const f = layer.feature(i);
        for (const key of Object.keys(f.properties)) assert.ok(allowed.has(key), `${name} feature carries ${key}`);
        if (name === 'zoning') assert.ok((ZONE_CATEGORIES as readonly string[]).includes(String(f.properties.category)));
      }
    }
    const codes = new Set(Array.from({ length: tile.layers.zoning!.length }, (_, i) => tile.layers.zoning!.feature(i).properties.code));
    assert.ok(codes.has('C-1'), `Acorn St is in C-1 (saw ${[...codes].join(', ')})`);
  });

  test('layers appear only from their zoom: z12 has zoning but no parcels; z8 only the boundary', async () => {
    const t12 = tileAt(ACORN.lon, ACORN.lat, 12);
    const l12 = decode((await getTile(svc.url, t12.z, t12.x, t12.y)).raw).layers;
    assert.ok(l12.zoning?.length && !l12.parcels && !l12.streets, Object.keys(l12).join(','));
    const t8 = tileAt(ACORN.lon, ACORN.lat, 8);
    const l8 = decode((await getTile(svc.url, t8.z, t8.x, t8.y)).raw).layers;
    assert.deepEqual(Object.keys(l8), ['boundary']);
  });

  test('a Chicago tile (zoning only, no parcels loaded) has zoning coloured by category', async () => {
    const t = tileAt(-87.6359, 41.8789, 14);
    const layers = decode((await getTile(svc.url, t.z, t.x, t.y)).raw).layers;
    assert.ok(layers.zoning?.length);
    assert.equal(layers.parcels, undefined);
    const cats = new Set(Array.from({ length: layers.zoning!.length }, (_, i) => layers.zoning!.feature(i).properties.category));
    assert.ok(cats.has('mixed_use'), `downtown Chicago is DX/DC: mixed use (saw ${[...cats].join(', ')})`);
  });

  test('an empty tile far from any place is 200 with an empty body; a cached tile answers If-None-Match with 304', async () => {
    const empty = await getTile(svc.url, 14, 100, 100);
    assert.equal(empty.res.status, 200);
    assert.equal(empty.raw.length, 0);
    const { z, x, y } = tileAt(ACORN.lon, ACORN.lat, 15);
    const first = await getTile(svc.url, z, x, y);
    const etag = first.res.headers.get('etag')!;
    assert.ok(etag);
    const again = await getTile(svc.url, z, x, y, { 'if-none-match': etag });
    assert.equal(again.res.status, 304);
  });

  test('bad tile addresses are refused with a JSON 404, even for a browser', async () => {
    for (const p of ['/tiles/17/0/0.pbf', '/tiles/2/4/0.pbf', '/tiles/a/0/0.pbf', '/tiles/1/0/0.png', '/tiles/1/0/-1.pbf']) {
      const res = await fetch(`${svc.url}${p}`, { headers: { accept: 'text/html,*/*' } });
      assert.equal(res.status, 404, p);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/, p);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'not_found');
    }
  });

  test('MapLibre GL JS and the map script are served from this origin (no CDN); other files are not', async () => {
    for (const f of ['maplibre-gl.mjs', 'maplibre-gl-worker.mjs', 'maplibre-gl.css']) {
      const res = await fetch(`${svc.url}/assets/maplibre-gl/${f}`);
      assert.equal(res.status, 200, f);
      assert.ok((await res.arrayBuffer()).byteLength > 10_000, f);
    }
    const script = await fetch(`${svc.url}/assets/site-map.js`);
    assert.equal(script.status, 200);
    assert.match(await script.text(), /from '\/assets\/maplibre-gl\/maplibre-gl\.mjs'/);
    for (const f of ['package.json', '..%2Fpackage.json', 'maplibre-gl.mjs.map'])
      assert.equal((await fetch(`${svc.url}/assets/maplibre-gl/${f}`)).status, 404, f);
  });
});

test('tile math: a point lies inside the box of the tile that holds it', () => {
  for (const z of [0, 5, 12, 16]) {
    const t = tileAt(ACORN.lon, ACORN.lat, z);
    const [w, s, e, n] = tileBBox(t);
    assert.ok(w <= ACORN.lon && ACORN.lon <= e && s <= ACORN.lat && ACORN.lat <= n, `z${z}`);
  }
});

test('zone categories: named districts by name, unnamed ones by code prefix, the rest "other"', () => {
  assert.equal(zoneCategory('C-1', 'Residence C-1 District'), 'residential');
  assert.equal(zoneCategory('BA', 'Business A District'), 'commercial');
  assert.equal(zoneCategory('IB-1', 'Industry B-1 District'), 'industrial');
  assert.equal(zoneCategory('SD-4', 'Special Business, Office and Industrial District 4'), 'special');
  assert.equal(zoneCategory('MAS-18', 'Massachusetts Avenue MAS-18'), 'mixed_use');
  assert.equal(zoneCategory('P-4', 'Recreation and Open Space'), 'open_space');
  assert.equal(zoneCategory('A-1', 'Rural'), 'rural');
  assert.equal(zoneCategory('RS-3', null), 'residential');
  assert.equal(zoneCategory('DX-12', null), 'mixed_use');
  assert.equal(zoneCategory('M2-2', null), 'industrial');
  assert.equal(zoneCategory('XYZ', null), 'other');
});
