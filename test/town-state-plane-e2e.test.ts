// @engine-independent: the binary and the service run with DATABASE_URL blank, on embedded PGlite in a data directory of their own, so a PostgreSQL run would repeat the PGlite one.
// A town in a State Plane CRS goes live with no hand edit, through the real `siteline` binary. The
// files are written here from a small real sample: Paradise, TX's seven zoning districts (the OZFS
// file in the data pack) reprojected to EPSG:2276 (NAD83 / Texas North Central, US feet), with the
// district code in BASE_DISTR and a misleading REZONING field (dates and notes) named more like zoning;
// parcels (with an owner-name column) laid inside the districts in the same CRS; an address CSV with
// feet x/y and no CRS named. data init picks the field by content, lists every inferred choice under
// "Confirm" with its evidence, never prints the owner names; check and import agree; the address answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import proj4 from 'proj4';
import { ROOT, SHARED_DATA } from './support/harness.ts';
import { sitelineRunner, townCliEnv } from './support/cli.ts';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { getUserToken } from './support/auth-flow.ts';
import { api, createKey } from './rest-support.ts';
import { pointInMultiPolygon, toMultiPolygon, type MultiPolygonCoords } from '../src/core/geo/primitives.ts';

/** EPSG:2276 as epsg.io publishes it, written here so the test does not read the registry the product reads. */
const TX_NORTH_CENTRAL_FTUS =
  '+proj=lcc +lat_1=33.96666666666667 +lat_2=32.13333333333333 +lat_0=31.66666666666667 +lon_0=-98.5 +x_0=600000 +y_0=2000000.0001016 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=us-ft +no_defs';
const CRS = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::2276' } };
const STREETS = [
  'MAIN ST',
  'OAK AVE',
  'PECAN DR',
  'CEDAR LN',
  'HILL RD',
  'RANCH RD',
  'FM 1810',
  'MILL ST',
  'ELM ST',
  'PARK AVE',
  'BOIS D ARC ST',
  'SCHOOL ST',
  'LAKE DR',
  'CREEK RD',
  'POST OAK RD',
  'CHURCH ST',
  'WALNUT ST',
  'MAPLE AVE',
  'RIDGE RD',
  'COTTON LN',
  'PRAIRIE DR',
  'BRAZOS ST',
  'MESA DR',
  'FORT ST',
];

type Ring = [number, number][];
const rect = (x: number, y: number, w: number, h: number): Ring => [
  [x, y],
  [x + w, y],
  [x + w, y + h],
  [x, y + h],
  [x, y],
];
const reproject = (c: unknown, f: (p: [number, number]) => [number, number]): unknown =>
  typeof (c as unknown[])[0] === 'number' ? f(c as [number, number]) : (c as unknown[]).map((k) => reproject(k, f));

export interface StatePlaneTown {
  /** district code per lot PIN (what the answers must say). */
  zoneOf: Map<string, string>;
  /** a few (address, PIN) pairs. */
  sample: { address: string; pin: string }[];
  /** the zoning features as written (State Plane feet), for republishing a changed file. */
  zoning: { type: string; properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } }[];
  /** addresses inside the limits whose id names another lot than the one holding their point. */
  disagreeing: string[];
  /** address points north of the town limits. */
  outside: number;
  /** the address of each lot. */
  addressOf: Map<string, string>;
}

/** Writes the town's files into dir (see the file comment). */
export function writeStatePlaneTown(dir: string): StatePlaneTown {
  fs.mkdirSync(dir, { recursive: true });
  const toFeet = proj4('EPSG:4326', TX_NORTH_CENTRAL_FTUS);
  const ozfs = JSON.parse(fs.readFileSync(path.join(SHARED_DATA, 'paradise-tx-ozfs/Paradise.zoning'), 'utf8')) as {
    features: { properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } }[];
  };
  const notes = ['2019-04-02', 'Rezoned per Ord. 2019-07', '', '2021-11-15', 'See case Z-2020-3', '', '2023-01-09'];
  const zoning = ozfs.features.map((f, i) => ({
    type: 'Feature',
    properties: {
      OBJECTID: i + 1,
      REZONING: notes[i % notes.length],
      BASE_DISTR: String(f.properties['dist_abbr']),
      ZONE_DESC: String(f.properties['dist_name']),
    },
    geometry: { type: f.geometry.type, coordinates: reproject(f.geometry.coordinates, (p) => toFeet.forward(p) as [number, number]) },
  }));
  fs.writeFileSync(path.join(dir, 'zoning.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: zoning }));
  const districts = zoning.map((z) => ({ code: z.properties.BASE_DISTR, mp: toMultiPolygon(z.geometry as never) as MultiPolygonCoords }));
  // Lots of 100 x 150 ft on a 400 ft grid, kept where the lot lies wholly in one district.
  const parcels = [];
  const rows = ['ADDR_ID,SITE_ADDR,PARCEL_ID,POINT_X,POINT_Y'];
  const zoneOf = new Map<string, string>();
  const sample: StatePlaneTown['sample'] = [];
  const disagreeing: string[] = [];
  const addressOf = new Map<string, string>();
  let n = 0;
  for (let gy = 0, y = 7_098_200; y < 7_106_600; y += 400, gy++) {
    for (let gx = 0, x = 2_213_400; x < 2_219_900; x += 400, gx++) {
      const corners = rect(x, y, 100, 150).slice(0, 4);
      const d = districts.find((z) => [...corners, [x + 50, y + 75] as [number, number]].every((p) => pointInMultiPolygon(p, z.mp)));
      if (!d) continue;
      n++;
      const pin = `R${String(100000 + n)}`;
      zoneOf.set(pin, d.code);
      parcels.push({
        type: 'Feature',
        properties: { PIN: pin, OWNER_NAME: `SMITHERSON JOHN ${n}`, ACRES: 0.34 },
        geometry: { type: 'Polygon', coordinates: [rect(x, y, 100, 150)] },
      });
      const address = `${100 + gx * 10} ${STREETS[gy % STREETS.length]}`;
      // Every 25th address names the previous lot by id while its point is in its own: an id-vs-point
      // disagreement; every 20th has no id, so the point join wins (lotBy point).
      const ownId = n % 25 === 0 ? `R${String(100000 + n - 1)}` : n % 20 === 10 ? '' : pin;
      addressOf.set(pin, address);
      if (n % 25 === 0 && y + 75.5 <= 7_105_000) disagreeing.push(address); // inside the town limits (below)
      rows.push([n, address, ownId, (x + 50.5).toFixed(1), (y + 75.5).toFixed(1)].join(','));
      if (sample.length < 40 && n % 7 === 0) sample.push({ address, pin });
    }
  }
  fs.writeFileSync(path.join(dir, 'parcels.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: parcels }));
  fs.writeFileSync(path.join(dir, 'addresses.csv'), rows.join('\n') + '\n');
  // The town limits (lon/lat) stop at y = 7,105,000 ft: the addresses north of it are outside.
  const toLonLat = proj4(TX_NORTH_CENTRAL_FTUS, 'EPSG:4326');
  const limits = rect(2_213_000, 7_097_800, 7_300, 7_200).map((p) => toLonLat.forward(p) as [number, number]);
  fs.writeFileSync(
    path.join(dir, 'town-limits.geojson'),
    JSON.stringify({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: { CITY: 'TESTBURG' }, geometry: { type: 'Polygon', coordinates: [limits] } }],
    }),
  );
  const outside = rows.slice(1).filter((r) => Number(r.split(',')[4]) > 7_105_000).length;
  return { zoneOf, sample, zoning, disagreeing, outside, addressOf };
}

test('a State Plane town with a misleading district field goes live with no hand edit, then republishes its zoning', async () => {
  const tmp = fs.mkdtempSync(path.join(ROOT, '.siteline-test-stateplane-'));
  try {
    const town = path.join(tmp, 'testburg-tx');
    const places = path.join(tmp, 'places');
    const t = writeStatePlaneTown(town);
    assert.ok(t.zoneOf.size >= 60, `lots: ${t.zoneOf.size}`);
    assert.ok(new Set(t.zoneOf.values()).size >= 3, 'lots in several districts');
    const env = townCliEnv(tmp, places);
    const siteline = sitelineRunner(env);

    const init = siteline(
      'data',
      'init',
      'testburg-tx',
      '--from',
      town,
      '--name',
      'Testburg',
      '--region',
      'TX',
      '--country',
      'US',
      '--vintage',
      '2024-08-14',
      '--licence',
      'MIT (zoneR sample)',
      '--attribution',
      'zoneR authors',
    );
    assert.equal(init.code, 0, init.err + init.out);
    // Every EPSG code by number: the State Plane CRS is read from the file's crs member, no proj4 string pasted.
    assert.match(init.out, /zoning\.geojson: geojson; 7 rows .* -> ZONING\n\s+CRS: EPSG:2276 \(the file's crs member names urn:ogc:def:crs:EPSG::2276\)/);
    // Field choice by content: BASE_DISTR (codes), not REZONING (dates and notes, named more like zoning).
    assert.match(
      init.out,
      /district code: \(by its values: they look like district codes\) field BASE_DISTR: 7 distinct values \(e\.g\. A, B-1, I-1, I-2, MU\), on 100\.0 % of 7 polygons, 100\.0 % shaped like district codes; not REZONING \(0\.0 % code-shaped\)/,
    );
    assert.match(
      init.out,
      /Confirm:[\s\S]*- the district code field BASE_DISTR of zoning\.geojson: 7 distinct values \(e\.g\. A, B-1, I-1, I-2, MU\)[^\n]*; lot -> zone 100\.0 %/,
    );
    assert.match(
      init.out,
      /Confirm:[\s\S]*- the parcel id field PIN of parcels\.geojson: the parcel field the best join key matches \(PARCEL_ID -> PIN: 9\d\.\d % of addresses\)/,
    );
    assert.match(init.out, /Confirm:[\s\S]*- lots found by point: the point join \(100\.0 %\) beats the best id join/);
    assert.match(init.out, /Confirm:[\s\S]*- \d+ addresses name one lot by id but their point lies in another/);
    assert.match(init.out, /Confirm:[\s\S]*- that SITE_ADDR is the street address \(not a mailing address\): one-line address column SITE_ADDR/);
    // Personal data never printed: the owner column is listed by name only.
    assert.match(init.out, /OWNER_NAME\s+\d+ distinct\s+\(personal data: values not shown\)/);
    assert.doesNotMatch(init.out + init.err, /SMITHERSON/);
    assert.match(init.out, /personal data \(names, contacts\) not shown and not loaded: parcels\.geojson: OWNER_NAME/);
    const manifest = JSON.parse(fs.readFileSync(path.join(places, 'testburg-tx', 'manifest.json'), 'utf8'));
    const byId = Object.fromEntries(manifest.sources.map((s: { id: string }) => [s.id, s]));
    assert.equal(byId.zoning.load.code.field, 'BASE_DISTR');
    assert.equal(byId.zoning.load.nameField, 'ZONE_DESC');
    assert.equal(byId.addresses.crs, 'EPSG:2276', "the CSV borrows the parcels' CRS, by number");
    assert.doesNotMatch(JSON.stringify(manifest), /TO CONFIRM/);
    // The bbox is Paradise's, so the State Plane feet were read as such.
    const [w, s, e, n] = manifest.bbox as number[];
    assert.ok(w! > -97.71 && e! < -97.67 && s! > 33.13 && n! < 33.17, `bbox ${manifest.bbox}`);

    const check = siteline('data', 'check', 'testburg-tx', '--from', town);
    assert.equal(check.code, 0, check.err + check.out);
    assert.match(check.out, /verdict: LIVE/);
    const imp = siteline('data', 'import', 'testburg-tx', '--from', town);
    assert.equal(imp.code, 0, imp.err + imp.out);
    assert.match(imp.out, /live: the join rates pass the thresholds/);
    // An independent audit: the town's own lot id is kept although the point found the lots, so the
    // audit sees where the id and the point disagree, and counts the address points outside the limits.
    const audit = siteline('data', 'audit', 'testburg-tx');
    assert.equal(audit.code, 0, audit.err + audit.out);
    const idVsPoint = audit.out.match(/town's lot id vs its address point\s+(\d+) of \d+ disagree \(e\.g\. ([^:]+): id R\d+, point in R\d+/);
    assert.ok(idVsPoint, audit.out);
    assert.equal(Number(idVsPoint[1]), t.disagreeing.length);
    assert.ok(t.disagreeing.includes(idVsPoint[2]!), idVsPoint[2]);
    assert.ok(t.outside > 0);
    assert.match(audit.out, new RegExp(`address points outside the boundary\\s+${t.outside} of ${t.zoneOf.size} \\(e\\.g\\. `));
    for (const { address, pin } of t.sample.slice(0, 2)) {
      const a = siteline('check', '--local', '--json', `${address}, Testburg, TX`);
      assert.equal(a.code, 0, a.err + a.out);
      const snap = JSON.parse(a.out);
      assert.equal(snap.lot.parcelExternalId, pin);
      assert.equal(snap.zones.primary, t.zoneOf.get(pin));
    }

    // The town republishes its zoning: the code column renamed (BASE_DISTR -> BASE_ZONE) and one district rezoned to MU.
    const rezoned = [...new Set(t.zoneOf.values())].includes('R-2') ? 'R-2' : 'B-1';
    const lotsRezoned = [...t.zoneOf]
      .filter(([, z]) => z === rezoned)
      .map(([pin]) => pin)
      .sort();
    assert.ok(lotsRezoned.length > 0);
    const republished = t.zoning.map((f) => {
      const { BASE_DISTR, ...rest } = f.properties as { BASE_DISTR: string };
      return { ...f, properties: { ...rest, BASE_ZONE: BASE_DISTR === rezoned ? 'MU' : BASE_DISTR } };
    });
    fs.writeFileSync(path.join(town, 'zoning.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: republished }));
    const lot = lotsRezoned[0]!;
    const askZone = () => {
      const a = siteline('check', '--local', '--json', `${t.addressOf.get(lot)}, Testburg, TX`);
      assert.equal(a.code, 0, a.err + a.out);
      return JSON.parse(a.out).zones.primary as string;
    };
    // Not confirmed (no --yes, no terminal): the change is shown, nothing is imported, the old import answers.
    const shown = siteline('data', 'update', 'testburg-tx', '--from', town, '--vintage', '2026-11-01');
    assert.equal(shown.code, 1, shown.err + shown.out);
    assert.match(shown.out, /changed files \(1\):\n\s+zoning\.geojson \(zoning\): sha256 /);
    assert.match(shown.out, /renamed column: zoning\.geojson: BASE_DISTR -> BASE_ZONE \(100\.0 % of its values are the old column's values as loaded/);
    assert.match(shown.out, new RegExp(`lots whose zone changed: ${lotsRezoned.length} \\(e\\.g\\. ${lot}: ${rezoned} -> MU`));
    assert.match(shown.out, new RegExp(`districts: added none; removed ${rezoned}; rules changed none`));
    assert.match(shown.out, /lots: \d+ before, \d+ after; 0 added, 0 removed/);
    assert.match(shown.out, /verdict: LIVE/);
    assert.match(shown.err, /nothing imported \(not confirmed; pass --yes in scripts\)/);
    assert.equal(askZone(), rezoned, 'the previous import stays live');
    // A republished file that breaks the gate is refused and the previous import stays live.
    const broken = republished.map((f) => ({ ...f, properties: { ...f.properties, BASE_ZONE: '' } }));
    fs.writeFileSync(path.join(town, 'zoning.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: broken }));
    const refused = siteline('data', 'update', 'testburg-tx', '--from', town, '--yes');
    assert.equal(refused.code, 1, refused.err + refused.out);
    assert.match(refused.out, /REFUSED[\s\S]*sources\[zoning\]/);
    assert.match(refused.err, /nothing was imported and the previous import stays live/);
    assert.equal(askZone(), rezoned);
    // Confirmed: imported as the new vintage; the lot now answers MU.
    fs.writeFileSync(path.join(town, 'zoning.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: republished }));
    const applied = siteline('data', 'update', 'testburg-tx', '--from', town, '--vintage', '2026-11-01', '--yes');
    assert.equal(applied.code, 0, applied.err + applied.out);
    assert.match(applied.out, /testburg-tx: vintage 2026-11-01 is live/);
    assert.equal(askZone(), 'MU');
    // The answer names the vintage of each layer it used (its source catalogue): the new zoning vintage, the parcels' unchanged.
    const after = JSON.parse(siteline('check', '--local', '--json', `${t.addressOf.get(lot)}, Testburg, TX`).out);
    const catalogue = Object.values(after.sourceCatalogue.sources as Record<string, { name: string; vintage: string }>);
    assert.equal(catalogue.find((x) => x.name === 'Zoning districts')!.vintage, '2026-11-01');
    assert.equal(catalogue.find((x) => x.name === 'Parcels')!.vintage, '2024-08-14');
    const updated = JSON.parse(fs.readFileSync(path.join(places, 'testburg-tx', 'manifest.json'), 'utf8'));
    const zoningSource = updated.sources.find((x: { id: string }) => x.id === 'zoning');
    assert.equal(zoningSource.load.code.field, 'BASE_ZONE');
    assert.equal(zoningSource.vintage, '2026-11-01');
    assert.equal(siteline('data', 'update', 'testburg-tx', '--from', town).out.trim(), 'testburg-tx: no file changed since the last import; nothing to do.');

    // The change log per import, on the real server: the coverage page and its JSON.
    const svc = await startService(loadConfig({ ...env, LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv, { port: 0, host: '127.0.0.1', autoImport: false }));
    try {
      const pageRes = await fetch(`${svc.url}/coverage/testburg-tx`);
      assert.equal(pageRes.status, 200);
      const pageHtml = await pageRes.text();
      assert.match(pageHtml, /<h2 id="changes">Changes by import<\/h2>/);
      assert.match(pageHtml, new RegExp(`lots whose zone changed: ${lotsRezoned.length} \\(e\\.g\\. ${lot}: ${rezoned} -&gt; MU`));
      assert.match(pageHtml, /renamed column: zoning\.geojson: BASE_DISTR -&gt; BASE_ZONE/);
      const logRes = await fetch(`${svc.url}/coverage/testburg-tx/changes.json`);
      assert.equal(logRes.status, 200);
      const log = (await logRes.json()) as {
        vintages: {
          layers: { id: string; vintage: string }[];
          changes: { lots: { zoneChanged: { count: number; examples: { lot: string }[] } }; renamedColumns: { to: string }[] } | null;
        }[];
      };
      assert.equal(log.vintages.length, 2, 'the first import and the update');
      assert.equal(log.vintages[0]!.layers.find((l) => l.id === 'zoning')!.vintage, '2026-11-01');
      assert.equal(log.vintages[1]!.layers.find((l) => l.id === 'zoning')!.vintage, '2024-08-14');
      assert.equal(log.vintages[0]!.changes!.lots.zoneChanged.count, lotsRezoned.length);
      assert.deepEqual(
        log.vintages[0]!.changes!.lots.zoneChanged.examples.map((e) => e.lot),
        lotsRezoned.slice(0, 25),
      );
      assert.equal(log.vintages[0]!.changes!.renamedColumns[0]!.to, 'BASE_ZONE');
      assert.equal(log.vintages[1]!.changes, null);
      // The REST coverage lookup: which lots changed zoning since a date.
      const key = await createKey(svc.url, await getUserToken(svc.url, 'clerk@testburg.example'), 'changes');
      const since = await api(svc.url, `/api/v1/coverage?geoDivisionId=${encodeURIComponent('US-TX:testburg')}&changesSince=2000-01-01`, { token: key.key });
      assert.equal(since.status, 200, since.text);
      assert.equal(since.json.changes.length, 2, 'both imports');
      assert.equal(since.json.changes[0].changes.lots.zoneChanged.count, lotsRezoned.length);
      const none = await api(svc.url, `/api/v1/coverage?geoDivisionId=${encodeURIComponent('US-TX:testburg')}&changesSince=2999-01-01`, { token: key.key });
      assert.deepEqual(none.json.changes, []);
      const plain = await api(svc.url, `/api/v1/coverage?geoDivisionId=${encodeURIComponent('US-TX:testburg')}`, { token: key.key });
      assert.equal(plain.json.changes, undefined, 'only when asked');
      const bad = await api(svc.url, `/api/v1/coverage?address=${encodeURIComponent('1 Main St, Testburg, TX')}&changesSince=2026-01-01`, { token: key.key });
      assert.equal(bad.status, 400, bad.text);
    } finally {
      await svc.close();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('data init on an OZFS directory (Paradise, TX) makes the place the shipped manifest describes, parcels included', () => {
  const tmp = fs.mkdtempSync(path.join(ROOT, '.siteline-test-ozfs-init-'));
  try {
    const places = path.join(tmp, 'places');
    const env = {
      ...process.env,
      DATABASE_URL: '',
      SITELINE_DATA_DIR: path.join(tmp, 'data'),
      SITELINE_PLACES_DIR: places,
      SITELINE_SOURCE_DIR: SHARED_DATA,
      SITELINE_AUTO_IMPORT: '0',
      LOG_LEVEL: 'warn',
      NO_COLOR: '1',
    };
    const siteline = sitelineRunner(env);
    const dir = path.join(SHARED_DATA, 'paradise-tx-ozfs');
    const init = siteline(
      'data',
      'init',
      'paradise-again-tx',
      '--from',
      dir,
      '--name',
      'Paradise',
      '--region',
      'TX',
      '--country',
      'US',
      '--licence',
      'MIT',
      '--attribution',
      'zoneR authors',
    );
    assert.equal(init.code, 0, init.err + init.out);
    assert.match(init.out, /Paradise\.parcel: ozfs-parcel; \d+ rows \(\d+ Polygon\) -> PARCELS/);
    assert.match(init.out, /Paradise\.zoning: ozfs-zoning; 7 rows .* -> ZONING/);
    assert.doesNotMatch(init.out, /no parcel layer found/);
    assert.match(init.out, /Confirm:[\s\S]*the vintage of Paradise\.zoning: 2024-08-14, the date the file itself states/);
    const drafted = JSON.parse(fs.readFileSync(path.join(places, 'paradise-again-tx', 'manifest.json'), 'utf8'));
    const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'places/paradise-tx/manifest.json'), 'utf8'));
    const shape = (m: { sources: { id: string; file: string; sha256: string; format: string; load: unknown }[] }) =>
      m.sources.map((s) => ({ id: s.id, file: s.file, sha256: s.sha256, format: s.format, load: s.load })).sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(shape(drafted), shape(shipped));
    assert.equal(drafted.geoDivisionId, shipped.geoDivisionId);
    assert.equal(drafted.status, 'planned_not_live', 'no address table: not live, as shipped');
    assert.equal(drafted.sources.find((s: { id: string }) => s.id === 'zoning').vintage, '2024-08-14');
    assert.deepEqual(
      drafted.documents.map((d: { file: string }) => d.file),
      ['LICENSE', 'LICENSE.md'],
    );
    // The parcels read and join to the districts as the shipped place's do.
    const check = siteline('data', 'check', 'paradise-again-tx', '--from', dir);
    const shippedCheck = sitelineRunner({ ...env, SITELINE_PLACES_DIR: path.join(ROOT, 'places') })('data', 'check', 'paradise-tx');
    const rates = (out: string) =>
      out
        .split('\n')
        .filter((l) => /^\s+(parcels|zoning)\s|lot -> zone/.test(l))
        .join('\n');
    assert.match(check.out, /parcels\s+parcels\s+\d+ read, \d+ usable/);
    assert.equal(rates(check.out), rates(shippedCheck.out), check.out + shippedCheck.out);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
