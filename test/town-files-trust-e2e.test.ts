// @engine-independent: the binary runs with DATABASE_URL blank, on embedded PGlite in a data directory of its own, so a PostgreSQL run would repeat the PGlite one.
// A town's files, trusted (issue 50), through the real `siteline` binary. The town publishes parcels as a
// shapefile whose owner column's header the .dbf cut to `Property_O` (and a descriptive `Zoning` column),
// zoning with unzoned pieces (40 % of its polygons have no code) and an overlay told by a `KIND` field,
// and an address CSV with the owners again. `init` then `check` pass with no hand edit; no command ever
// prints an owner's name; a half-truncated file of each layer, an empty one and a halved one are
// refused by `update` with nothing changed; a semicolon CSV is read as init reads it; a real shrink goes
// through with --accept-shrink and its reason; a broken or empty zoning file makes `init` refuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import proj4 from 'proj4';
import { ROOT } from './support/harness.ts';
import { townCliEnv, sitelineRunner } from './support/cli.ts';
import { writePolygonShapefile } from './support/shapefile-writer.ts';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { getUserToken } from './support/auth-flow.ts';
import { api, createKey } from './rest-support.ts';

const UTM19N = '+proj=utm +zone=19 +datum=NAD83 +units=m +no_defs';
const UTM19N_WKT =
  'PROJCS["NAD_1983_UTM_Zone_19N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-69.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]';
const X0 = 330_000;
const Y0 = 4_690_000;
const STREETS = ['ELM ST', 'OAK AVE', 'MILL RD'];
/** Owners' surnames: none may appear in any command's output. */
const SURNAMES = [
  'ZABRISKIE',
  'QUORNDON',
  'HOLLOWAYNE',
  'PENDERGRASTY',
  'MCFADZEAN',
  'WOJCIECHOWSKA',
  'FEATHERSTONHAUGH',
  'OYELARAN',
  'KITTREDGEMORE',
  'VANDERSLOOTEN',
];
const owner = (n: number) => {
  const s = SURNAMES[n % SURNAMES.length]!;
  return [`${s} JOHN & MARY`, `${s} FAMILY TRUST`, `${s} HOLDINGS LLC`, `${s} PATRICK ETAL`, `${s} ANNA`][n % 5]!;
};

type Ring = [number, number][];
const rect = (x: number, y: number, w: number, h: number): Ring => [
  [x, y],
  [x + w, y],
  [x + w, y + h],
  [x, y + h],
  [x, y],
];
const pin = (s: number, i: number) => `T-${s}${String(i).padStart(2, '0')}`;
const CRS = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::26919' } };

interface Address {
  id: number;
  text: string;
  pin: string;
  x: number;
  y: number;
}

function addressesCsv(rows: Address[], delimiter = ','): string {
  return (
    ['ADDR_ID', 'FULL_ADDRESS', 'MAP_PIN', 'X', 'Y', 'Property_O'].join(delimiter) +
    '\n' +
    rows.map((a) => [a.id, a.text, a.pin, a.x.toFixed(1), a.y.toFixed(1), owner(a.id)].join(delimiter)).join('\n') +
    '\n'
  );
}

/** The parcels shapefile; republished: lot T-000 split in two, lots T-108 and T-109 merged. */
function writeParcels(dir: string, republished = false): void {
  const records = [];
  for (let s = 0; s < STREETS.length; s++) {
    for (let i = 0; i < 10; i++) {
      const x = X0 + i * 20;
      const y = Y0 + s * 100;
      const n = s * 10 + i;
      const props = (id: string) => ({ PIN: id, Property_O: owner(n), Zoning: i < 5 ? 'Residential' : 'Business', ACRES: 0.2 });
      if (republished && pin(s, i) === pin(0, 0))
        records.push({ ring: rect(x, y, 10, 40), props: props('T-000A') }, { ring: rect(x + 10, y, 10, 40), props: props('T-000B') });
      else if (republished && pin(s, i) === pin(1, 8)) records.push({ ring: rect(x, y, 40, 40), props: props('T-108M') });
      else if (republished && pin(s, i) === pin(1, 9)) continue;
      else records.push({ ring: rect(x, y, 20, 40), props: props(pin(s, i)) });
    }
  }
  writePolygonShapefile(path.join(dir, 'parcels'), records, ['PIN', 'Property_O', 'Zoning', 'ACRES'], UTM19N_WKT);
}

/** The town's files (see the file comment); returns the address rows. */
function writeTown(dir: string): Address[] {
  fs.mkdirSync(dir, { recursive: true });
  const addresses: Address[] = [];
  for (let s = 0; s < STREETS.length; s++) {
    for (let i = 0; i < 10; i++)
      addresses.push({ id: s * 10 + i + 1, text: `${2 * i + 2} ${STREETS[s]}`, pin: pin(s, i), x: X0 + i * 20 + 10.5, y: Y0 + s * 100 + 20.5 });
  }
  writeParcels(dir);
  const zone = (code: string, kind: string, ring: Ring) => ({
    type: 'Feature',
    properties: { ZONE: code, KIND: kind },
    geometry: { type: 'Polygon', coordinates: [ring] },
  });
  const zoning = [
    zone('R-1', 'base', rect(X0, Y0 - 10, 100, 260)),
    zone('B-2', 'base', rect(X0 + 100, Y0 - 10, 100, 260)),
    zone('HOD', 'overlay', rect(X0, Y0 - 5, 200, 50)),
    // Unzoned pieces (a river, a road) with no district code: 2 of the 4 base polygons' rows.
    zone('', 'base', rect(X0 - 60, Y0 - 10, 50, 260)),
    zone('', 'base', rect(X0 + 210, Y0 - 10, 50, 260)),
  ];
  fs.writeFileSync(path.join(dir, 'zoning.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: zoning }));
  const toLonLat = proj4(UTM19N, 'EPSG:4326');
  const limits = rect(X0 - 80, Y0 - 20, 360, 280).map((p) => toLonLat.forward(p));
  fs.writeFileSync(
    path.join(dir, 'town-limits.geojson'),
    JSON.stringify({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: { TOWN: 'TRUSTVILLE' }, geometry: { type: 'Polygon', coordinates: [limits] } }],
    }),
  );
  fs.writeFileSync(path.join(dir, 'addresses.csv'), addressesCsv(addresses));
  return addresses;
}

const halve = (file: string) => fs.writeFileSync(file, fs.readFileSync(file).subarray(0, Math.floor(fs.statSync(file).size / 2)));

test('a town whose files cannot shrink silently and whose owners are never printed: init, check, import, update through the real binary', {
  timeout: 590_000,
}, async () => {
  const tmp = fs.mkdtempSync(path.join(ROOT, '.siteline-test-trust-'));
  try {
    const town = path.join(tmp, 'trustville-ma');
    const places = path.join(tmp, 'places');
    const addresses = writeTown(town);
    const env = townCliEnv(tmp, places);
    const run = sitelineRunner(env);
    const printed: string[] = [];
    const siteline = (...args: string[]) => {
      const r = run(...args);
      printed.push(`$ siteline ${args.join(' ')}\n${r.out}${r.err}`);
      return r;
    };
    const manifestFile = path.join(places, 'trustville-ma', 'manifest.json');

    // init then check: 0 hand edits.
    const init = siteline(
      'data',
      'init',
      'trustville-ma',
      '--from',
      town,
      '--name',
      'Trustville',
      '--region',
      'MA',
      '--country',
      'US',
      '--vintage',
      '2026-01-15',
      '--licence',
      'Public domain',
      '--attribution',
      'Town of Trustville GIS',
    );
    assert.equal(init.code, 0, init.err + init.out);
    assert.match(init.out, /parcels\.shp: shapefile, windows-1252; 30 rows .* -> PARCELS/);
    assert.match(init.out, /Property_O\s+\d+ distinct\s+\(personal data: values not shown\)/, 'the cut owner header is found');
    assert.match(init.out, /personal data \(names, contacts\) not shown and not loaded: .*addresses\.csv: Property_O.*parcels\.shp: Property_O/);
    assert.match(init.out, /zoning\.geojson: geojson; 5 rows .* -> ZONING/);
    assert.match(
      init.out,
      /Confirm:[\s\S]*- sources\[zoning\]\.maxRejectedShare written as 0\.41, measured: 2 of 4 rows of zoning\.geojson rejected|Confirm:[\s\S]*- sources\[zoning\]\.maxRejectedShare written as 0\.41, measured: 2 of 5 rows of zoning\.geojson rejected \(40\.0 %; most: 2 x no district code in ZONE\), above the default 0\.1/,
    );
    assert.match(init.out, /Confirm:[\s\S]*- the kind field KIND of zoning\.geojson: "overlay" drafted as overlays \(HOD\), "base" as base districts/);
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    const byId = Object.fromEntries(manifest.sources.map((s: { id: string }) => [s.id, s]));
    assert.deepEqual(Object.keys(byId).sort(), ['addresses', 'boundary', 'overlays', 'parcels', 'zoning']);
    assert.equal(byId.zoning.load.code.field, 'ZONE', "the parcels' descriptive Zoning column is not the district layer");
    assert.deepEqual(byId.zoning.load.where, { KIND: 'base' });
    assert.deepEqual(byId.overlays.load.where, { KIND: 'overlay' });
    assert.equal(byId.overlays.load.zoneLayer, 'overlay');
    assert.equal(byId.zoning.maxRejectedShare, 0.41);
    assert.deepEqual(byId.addresses.counts, { rows: 30, features: 30 });
    assert.deepEqual(byId.parcels.counts, { rows: 30, features: 30 });
    const rules = JSON.parse(fs.readFileSync(path.join(places, 'trustville-ma', 'rules.json'), 'utf8'));
    assert.deepEqual(Object.keys(rules.districts).sort(), ['B-2', 'R-1'], 'the overlay is not drafted as a base district');
    assert.deepEqual(Object.keys(rules.overlays), ['HOD']);
    const check = siteline('data', 'check', 'trustville-ma', '--from', town);
    assert.equal(check.code, 0, check.err + check.out);
    assert.match(check.out, /verdict: LIVE/);
    const imp = siteline('data', 'import', 'trustville-ma', '--from', town);
    assert.equal(imp.code, 0, imp.err + imp.out);
    const answer = () => {
      const a = run('check', '--local', '--json', '4 Elm St, Trustville, MA');
      assert.equal(a.code, 0, a.err + a.out);
      return JSON.parse(a.out) as { lot: { parcelExternalId: string }; zones: { primary: string } };
    };
    assert.equal(answer().lot.parcelExternalId, pin(0, 1));

    // A half-truncated file of each layer, and an empty zoning file: refused, exit non-zero, nothing changed.
    const manifestBefore = fs.readFileSync(manifestFile, 'utf8');
    for (const [file, fault] of [
      ['zoning.geojson', /zoning\.geojson: truncated: the file ends mid-record/],
      ['parcels.shp', /parcels\.shp: truncated: the \.shp header says \d+ bytes, the file holds \d+/],
      ['parcels.dbf', /truncated: the \.dbf header says 30 records/],
      ['addresses.csv', /addresses\.csv: truncated: the file ends mid-record at line 1[56]|addresses \(addresses\.csv\) shrank/],
      ['town-limits.geojson', /town-limits\.geojson: truncated/],
    ] as const) {
      const abs = path.join(town, file);
      const whole = fs.readFileSync(abs);
      halve(abs);
      const r = siteline('data', 'update', 'trustville-ma', '--from', town, '--yes');
      assert.notEqual(r.code, 0, `${file}: ${r.out}${r.err}`);
      assert.match(r.out + r.err, fault, file);
      assert.doesNotMatch(r.out + r.err, /not valid JSON|MISSING column/, file);
      assert.equal(fs.readFileSync(manifestFile, 'utf8'), manifestBefore, `${file}: the manifest is unchanged`);
      fs.writeFileSync(abs, whole);
    }
    const zoningWhole = fs.readFileSync(path.join(town, 'zoning.geojson'));
    fs.writeFileSync(path.join(town, 'zoning.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: [] }));
    const empty = siteline('data', 'update', 'trustville-ma', '--from', town, '--yes');
    assert.equal(empty.code, 2, empty.out + empty.err);
    assert.match(empty.err, /zoning\.geojson \(zoning\) has no features \(0 features read\); nothing was changed/);
    assert.doesNotMatch(empty.out + empty.err, /MISSING column/);
    fs.writeFileSync(path.join(town, 'zoning.geojson'), zoningWhole);

    // Half the address rows, every line whole: the shrink names the layer, both counts and the setting.
    fs.writeFileSync(path.join(town, 'addresses.csv'), addressesCsv(addresses.slice(0, 15)));
    const shrunk = siteline('data', 'update', 'trustville-ma', '--from', town, '--yes');
    assert.equal(shrunk.code, 1, shrunk.out + shrunk.err);
    assert.ok(
      shrunk.out.includes(
        'addresses (addresses.csv) shrank: 15 rows, 30 recorded (lost 15, 50.0 %), more than the 5.0 % allowed [governed by sources[addresses].maxShrinkShare = 0.05 (the default); or --accept-shrink "<reason>"]',
      ),
      shrunk.out,
    );
    assert.match(shrunk.out, /addresses\s+rows 30 -> 15, features 30 -> 15 {2}\(addresses\.csv\)/);
    assert.match(shrunk.out, /addresses: 30 before, 15 after; 0 added, 15 removed \(e\.g\. /);
    assert.match(shrunk.err, /nothing was imported and the previous import stays live/);
    assert.equal(fs.readFileSync(manifestFile, 'utf8'), manifestBefore);
    assert.equal(answer().lot.parcelExternalId, pin(0, 1));

    // The town republishes its address table semicolon-delimited, one address renumbered, and its
    // parcels with a lot split and two merged: the CSV is read as init reads it; the change log is complete.
    const moved = addresses.map((a) => (a.id === 30 ? { ...a, text: `20A ${STREETS[2]}` } : a));
    fs.writeFileSync(path.join(town, 'addresses.csv'), addressesCsv(moved, ';'));
    writeParcels(town, true);
    const semi = siteline('data', 'update', 'trustville-ma', '--from', town, '--vintage', '2026-06-01');
    assert.equal(semi.code, 1, semi.out + semi.err); // not confirmed
    assert.match(semi.out, /format changed: addresses\.csv: csv\.delimiter "," -> ";"/);
    assert.doesNotMatch(semi.out, /renamed column|MISSING column/);
    assert.match(semi.out, /addresses: 30 before, 30 after; 1 added \(e\.g\. 20A Mill Rd\), 1 removed \(e\.g\. 20 Mill Rd\)/);
    assert.match(semi.out, /zoning\s+rows 5 -> 5, features 2 -> 2/);
    assert.match(semi.out, /parcels\s+rows 30 -> 30, features 30 -> 30/);
    assert.match(semi.out, /lots: 30 before, 30 after; 3 added \(e\.g\. T-000A, T-000B, T-108M\), 3 removed \(e\.g\. T-000, T-108, T-109\)/);
    assert.match(semi.out, /lots split: 1 \(e\.g\. T-000 -> T-000A \+ T-000B\)/);
    assert.match(semi.out, /lots merged: 1 \(e\.g\. T-108 \+ T-109 -> T-108M\)/);
    assert.match(semi.out, /verdict: LIVE/);
    const applied = siteline('data', 'update', 'trustville-ma', '--from', town, '--vintage', '2026-06-01', '--yes');
    assert.equal(applied.code, 0, applied.out + applied.err);
    assert.equal(JSON.parse(fs.readFileSync(manifestFile, 'utf8')).sources.find((s: { id: string }) => s.id === 'addresses').csv.delimiter, ';');

    // A real shrink, accepted with its reason: recorded in the change log.
    fs.writeFileSync(path.join(town, 'addresses.csv'), addressesCsv(moved.slice(0, 20), ';'));
    const accepted = siteline(
      'data',
      'update',
      'trustville-ma',
      '--from',
      town,
      '--vintage',
      '2026-07-01',
      '--yes',
      '--accept-shrink',
      'the town dropped MILL RD from its table',
    );
    assert.equal(accepted.code, 0, accepted.out + accepted.err);
    assert.match(
      accepted.out,
      /ACCEPTED a shrunk layer \(--accept-shrink "the town dropped MILL RD from its table"\): addresses \(addresses\.csv\) shrank: 20 rows, 30 recorded/,
    );
    assert.deepEqual(JSON.parse(fs.readFileSync(manifestFile, 'utf8')).sources.find((s: { id: string }) => s.id === 'addresses').counts, {
      rows: 20,
      features: 20,
    });
    const svc = await startService(loadConfig({ ...env, LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv, { port: 0, host: '127.0.0.1', autoImport: false }));
    try {
      const log = (await (await fetch(`${svc.url}/coverage/trustville-ma/changes.json`)).json()) as {
        vintages: { changes: { acceptedShrink?: { reason: string } } | null }[];
      };
      assert.equal(log.vintages[0]!.changes!.acceptedShrink!.reason, 'the town dropped MILL RD from its table');
      // changesSince by the town's vintage date or by our import date; every change, paged.
      const key = await createKey(svc.url, await getUserToken(svc.url, 'clerk@trustville.example'), 'changes');
      const since = async (query: string) => {
        const r = await api(svc.url, `/api/v1/coverage?geoDivisionId=${encodeURIComponent('US-MA:trustville')}&${query}`, { token: key.key });
        assert.equal(r.status, 200, r.text);
        return r.json as {
          changes: { vintageId: number }[];
          changeItems: { total: number; page: number; items: { kind: string; subject: string; vintage: string; detail: Record<string, unknown> }[] };
        };
      };
      const july = await since('changesSince=2026-06-15&changesBy=vintage&changesPageSize=1000');
      assert.equal(july.changes.length, 1, 'the 2026-07-01 vintage only');
      assert.equal(july.changeItems.total, 10);
      assert.deepEqual(new Set(july.changeItems.items.map((i) => i.kind)), new Set(['address_removed']));
      assert.ok(july.changeItems.items.every((i) => i.vintage === '2026-07-01'));
      const ours = await since('changesSince=2026-06-15&changesBy=import&changesPageSize=1000');
      assert.equal(ours.changes.length, 3, 'every import (the first and two updates) happened after 2026-06-15 by our clock');
      assert.equal(ours.changeItems.total, 20);
      const june = ours.changeItems.items.filter((i) => i.vintage === '2026-06-01');
      assert.deepEqual(june.map((i) => `${i.kind} ${i.subject}`).sort(), [
        'address_added 20A Mill Rd',
        'address_removed 20 Mill Rd',
        'lot_added T-000A',
        'lot_added T-000B',
        'lot_added T-108M',
        'lot_merged T-108M',
        'lot_removed T-000',
        'lot_removed T-108',
        'lot_removed T-109',
        'lot_split T-000',
      ]);
      assert.deepEqual(june.find((i) => i.kind === 'lot_split')!.detail, { into: ['T-000A', 'T-000B'] });
      const page2 = await since('changesSince=2026-06-01&changesBy=vintage&changesPageSize=7&changesPage=2');
      assert.equal(page2.changeItems.total, 20);
      assert.equal(page2.changeItems.page, 2);
      assert.equal(page2.changeItems.items.length, 7);
      const bad = await api(svc.url, `/api/v1/coverage?geoDivisionId=${encodeURIComponent('US-MA:trustville')}&changesBy=vintage`, { token: key.key });
      assert.equal(bad.status, 400, bad.text);
    } finally {
      await svc.close();
    }

    // No owner's name in anything any command printed.
    const all = printed.join('\n');
    for (const s of SURNAMES)
      assert.ok(
        !all.includes(s),
        `${s} printed:\n${all
          .split('\n')
          .filter((l) => l.includes(s))
          .slice(0, 3)
          .join('\n')}`,
      );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("data init refuses a broken or empty zoning file and writes nothing (never the parcels' Zoning column instead)", () => {
  const tmp = fs.mkdtempSync(path.join(ROOT, '.siteline-test-trust-init-'));
  try {
    const places = path.join(tmp, 'places');
    const siteline = sitelineRunner(townCliEnv(tmp, places));
    // A broken or empty zoning file: init refuses, nothing written (never the parcels' Zoning column instead).
    for (const [label, write, fault] of [
      ['broken', (f: string) => halve(f), /the zoning file zoning\.geojson cannot be read \(.*truncated/],
      [
        'empty',
        (f: string) => fs.writeFileSync(f, JSON.stringify({ type: 'FeatureCollection', crs: CRS, features: [] })),
        /the zoning file zoning\.geojson holds no features/,
      ],
    ] as const) {
      const other = path.join(tmp, `other-${label}`, 'trustville-ma');
      writeTown(other);
      write(path.join(other, 'zoning.geojson'));
      const r = siteline('data', 'init', `again-${label}-ma`, '--from', other, '--name', 'Again', '--region', 'MA', '--country', 'US');
      assert.equal(r.code, 2, r.out + r.err);
      assert.match(r.err, fault);
      assert.match(r.err, /nothing written/);
      assert.equal(fs.existsSync(path.join(places, `again-${label}-ma`)), false);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
