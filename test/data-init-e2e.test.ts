// @engine-independent: the town's commands run with DATABASE_URL blank, on embedded PGlite in a data directory of their own, so a PostgreSQL run would repeat the PGlite one.
// A town adds itself, end to end through the real `siteline` binary: files as a town publishes them
// (generated here: parcels and zoning in NAD83 / UTM 19N metres, an address CSV in Windows-1252 with a
// one-line address column and projected x/y but no CRS named, town limits in lon/lat), in a temp
// SITELINE_PLACES_DIR; `data init` drafts the manifest and rules, `data check` measures the joins,
// `data import` loads it live, `check --local` answers an address. Then a wrong join key keeps the place
// planned_not_live: the import exits 1 and the address is no longer answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import proj4 from 'proj4';
import { ROOT } from './support/harness.ts';
import { townCliEnv } from './support/cli.ts';

const UTM19N = '+proj=utm +zone=19 +datum=NAD83 +units=m +no_defs';
const X0 = 330_000;
const Y0 = 4_690_000;
const STREETS = ['ELM ST', 'T C TRL', 'CAFÉ RD'];

type Ring = [number, number][];
const rect = (x: number, y: number, w: number, h: number): Ring => [
  [x, y],
  [x + w, y],
  [x + w, y + h],
  [x, y + h],
  [x, y],
];
const pin = (s: number, i: number) => `25${String(s * 100 + i).padStart(8, '0')}`;

/** Writes the town's files: 3 streets x 10 lots of 20 m x 40 m, two districts split at the fifth lot. */
function writeTown(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const parcels = [];
  const rows = ['ADDR_ID,FULL_ADDRESS,TAXPIN7,MAP_PIN,X,Y'];
  let id = 0;
  for (let s = 0; s < STREETS.length; s++) {
    for (let i = 0; i < 10; i++) {
      const x = X0 + i * 20;
      const y = Y0 + s * 100;
      parcels.push({
        type: 'Feature',
        properties: { PIN: pin(s, i), TAX_PIN: String(4_000_000 + s * 100 + i), LOT_AREA: 800 },
        geometry: { type: 'Polygon', coordinates: [rect(x, y, 20, 40)] },
      });
      id++;
      let mapPin = pin(s, i);
      let py = y + 20.5;
      if (s === 0 && i === 9) mapPin = ''; // no id: found by its point
      if (s === 1 && i === 3) py = y + 70.5; // its point is in the street: found by its id
      if (s === 2 && i === 7) mapPin = pin(2, 6); // the id names the neighbour: a disagreement
      rows.push([id, `${2 * i + 2} ${STREETS[s]}`, String(1_000_000 + id), mapPin, (x + 10.5).toFixed(1), py.toFixed(1)].join(','));
    }
  }
  const crs = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::26919' } };
  fs.writeFileSync(path.join(dir, 'parcels.geojson'), JSON.stringify({ type: 'FeatureCollection', crs, features: parcels }));
  const zone = (code: string, name: string, x: number) => ({
    type: 'Feature',
    properties: { ZONE: code, ZONE_NAME: name },
    geometry: { type: 'Polygon', coordinates: [rect(x, Y0 - 10, 100, 260)] },
  });
  fs.writeFileSync(
    path.join(dir, 'zoning.geojson'),
    JSON.stringify({ type: 'FeatureCollection', crs, features: [zone('R-1', 'Residence 1', X0), zone('B-2', 'Business 2', X0 + 100)] }),
  );
  const toLonLat = proj4(UTM19N, 'EPSG:4326');
  const limits = rect(X0 - 20, Y0 - 20, 240, 280).map((p) => toLonLat.forward(p));
  fs.writeFileSync(
    path.join(dir, 'town-limits.geojson'),
    JSON.stringify({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: { TOWN: 'TESTVILLE' }, geometry: { type: 'Polygon', coordinates: [limits] } }],
    }),
  );
  fs.writeFileSync(path.join(dir, 'addresses.csv'), Buffer.from(rows.join('\r\n') + '\r\n', 'latin1')); // Windows-1252 bytes: É is 0xC9
}

test('a town adds itself: data init, data check, data import and check --local through the real binary', () => {
  const tmp = fs.mkdtempSync(path.join(ROOT, '.siteline-test-datainit-'));
  try {
    const town = path.join(tmp, 'testville-ma');
    const places = path.join(tmp, 'places');
    writeTown(town);
    const env = townCliEnv(tmp, places);
    const timings: string[] = [];
    const siteline = (...args: string[]) => {
      const t = Date.now();
      const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
      timings.push(`${args.slice(0, 2).join(' ')} ${Date.now() - t} ms`);
      return { code: r.status, out: r.stdout, err: r.stderr };
    };

    // -h never acts: nothing is written.
    const help = siteline('data', 'init', 'testville-ma', '--from', town, '-h');
    assert.equal(help.code, 0);
    assert.match(help.out, /Usage:\n {2}siteline data init <slug>/);
    assert.equal(fs.existsSync(places), false);

    // Without provenance, init writes "TO CONFIRM" placeholders, and the one gate refuses to take them live.
    const draft = siteline('data', 'init', 'testville-ma', '--from', town, '--name', 'Testville', '--region', 'MA', '--country', 'US');
    assert.equal(draft.code, 0, draft.err + draft.out);
    assert.match(
      draft.out,
      /Confirm:[\s\S]*each source's vintage, licence and attribution \(written as "TO CONFIRM"\); a place with a placeholder cannot go live/,
    );
    const draftCheck = siteline('data', 'check', 'testville-ma', '--from', town);
    assert.equal(draftCheck.code, 1, draftCheck.err + draftCheck.out);
    assert.match(
      draftCheck.out,
      /REFUSED: an import would be refused[\s\S]*12 placeholder\(s\) left in a place whose manifest says live:\n\s+manifest\.json sources\[boundary\]\.vintage: "TO CONFIRM: the date the town published town-limits\.geojson"/,
    );
    assert.match(draftCheck.out, /verdict: REFUSED/);
    const draftImport = siteline('data', 'import', 'testville-ma', '--from', town);
    assert.equal(draftImport.code, 2, draftImport.err + draftImport.out);
    assert.match(
      draftImport.err,
      /refusing to import:\n {2}- 12 placeholder\(s\) left[\s\S]*sources\[addresses\]\.attribution: "TO CONFIRM[\s\S]*Nothing was changed/,
    );
    // data status lists the place with its failed import and why, and the placeholders to replace.
    const failedStatus = siteline('data', 'status');
    assert.equal(failedStatus.code, 0, failedStatus.err + failedStatus.out);
    assert.match(
      failedStatus.out,
      /testville-ma\s+US-MA:testville\s+live_unavailable\s+not imported\n[\s\S]*LAST IMPORT FAILED at \S+:\n\s+testville-ma: refusing to import:\n\s+- 12 placeholder\(s\)/,
    );
    assert.match(failedStatus.out, /12 placeholder\(s\) to replace before it can go live, e\.g\. manifest\.json sources\[boundary\]\.vintage/);
    // A manifest that does not load is listed too, with why.
    fs.mkdirSync(path.join(places, 'broken-ma'));
    fs.writeFileSync(path.join(places, 'broken-ma', 'manifest.json'), '{"slug": "broken-ma"}');
    const brokenStatus = siteline('data', 'status', '--json');
    assert.equal(brokenStatus.code, 0, brokenStatus.err);
    const listed = JSON.parse(brokenStatus.out) as { slug: string; status: string; statusReason: string; lastImportFailed?: { reason: string } | null }[];
    assert.match(listed.find((p) => p.slug === 'broken-ma')!.status, /manifest_invalid/);
    assert.match(listed.find((p) => p.slug === 'testville-ma')!.lastImportFailed!.reason, /12 placeholder/);
    fs.rmSync(path.join(places, 'broken-ma'), { recursive: true });

    const init = siteline(
      'data',
      'init',
      'testville-ma',
      '--from',
      town,
      '--name',
      'Testville',
      '--region',
      'MA',
      '--country',
      'US',
      '--force',
      '--vintage',
      '2026-03-01',
      '--licence',
      'Public domain (town open data)',
      '--attribution',
      'Town of Testville GIS',
    );
    assert.equal(init.code, 0, init.err + init.out);
    assert.doesNotMatch(init.out, /TO CONFIRM/);
    assert.match(init.out, /parcels\.geojson: geojson; 30 rows .* -> PARCELS/);
    assert.match(init.out, /the file's crs member names urn:ogc:def:crs:EPSG::26919/);
    assert.match(init.out, /addresses\.csv: csv, windows-1252, header row/);
    assert.match(init.out, /fall within the extent of parcels\.geojson/); // the CSV's x/y CRS is borrowed, to confirm
    assert.match(init.out, /one-line address column FULL_ADDRESS .* reads a house number and a street in 30 of 30/);
    assert.match(init.out, /MAP_PIN -> PIN: 29 of 30 = 96\.7 %/);
    assert.doesNotMatch(init.out, /TAXPIN7 -> /, 'the 7-digit tax PIN matches no parcel and is not offered as a key');
    assert.match(init.out, /address point inside a parcel: 29 of 30 = 96\.7 %/);
    assert.match(init.out, /best key and point disagree on 1 addresses/);
    assert.match(init.out, /lots found by: id_then_point/);
    assert.match(init.out, /lot -> zone .*: 30 of 30 = 100\.0 %/);
    assert.match(init.out, /Confirm:\n[\s\S]*the CRS of addresses\.csv/);

    const manifest = JSON.parse(fs.readFileSync(path.join(places, 'testville-ma', 'manifest.json'), 'utf8'));
    assert.equal(manifest.geoDivisionId, 'US-MA:testville');
    assert.equal(manifest.status, 'live');
    const byId = Object.fromEntries(manifest.sources.map((s: { id: string }) => [s.id, s]));
    assert.deepEqual(Object.keys(byId).sort(), ['addresses', 'boundary', 'parcels', 'zoning']);
    assert.deepEqual(byId.addresses.load.fields, { oneLine: 'FULL_ADDRESS', parcelId: 'MAP_PIN', lon: 'X', lat: 'Y' });
    assert.equal(byId.addresses.crs, 'EPSG:26919', 'the CSV names no CRS: the borrowed one is written down');
    assert.equal(byId.parcels.crs, undefined, 'the GeoJSON names its own CRS');
    assert.equal(byId.parcels.load.idField, 'PIN');
    assert.equal(byId.zoning.load.code.field, 'ZONE');
    const rules = JSON.parse(fs.readFileSync(path.join(places, 'testville-ma', 'rules.json'), 'utf8'));
    assert.deepEqual(Object.keys(rules.districts).sort(), ['B-2', 'R-1']);
    assert.equal(rules.bylaw.url, undefined);
    assert.match(rules.bylaw.note, /No ordinance text was read/);
    assert.equal(rules.districts['R-1'].otherStandards.status, 'not_extracted');

    const check = siteline('data', 'check', 'testville-ma', '--from', town);
    assert.equal(check.code, 0, check.err + check.out);
    assert.match(check.out, /address -> lot\s+30 of 30 = 100\.00 %/);
    assert.match(check.out, /lot -> overlay\s+n\/a \(no overlay layer\)/);
    assert.match(check.out, /id and point disagree\s+1 /);
    assert.match(check.out, /verdict: LIVE/);

    const imp = siteline('data', 'import', 'testville-ma', '--from', town);
    assert.equal(imp.code, 0, imp.err + imp.out);
    assert.match(imp.out, /address -> parcel\s+30 of 30 = 100\.00 %/);
    assert.match(imp.out, /parcel -> overlay\s+n\/a \(no overlay layer\)/);
    assert.match(imp.out, /live: the join rates pass the thresholds/);

    const answer = siteline('check', '--local', '--json', '4 Elm St, Testville, MA');
    assert.equal(answer.code, 0, answer.err + answer.out);
    const snap = JSON.parse(answer.out);
    assert.equal(snap.answered, true);
    assert.equal(snap.lot.parcelExternalId, pin(0, 1));
    assert.equal(snap.zones.primary, 'R-1');
    assert.equal(snap.envelope.maxHeightFt.status, 'not_extracted');

    // A wrong join key (the 7-digit tax PIN, by id only): 0 % address -> lot, so the place is not live.
    byId.addresses.load.fields.parcelId = 'TAXPIN7';
    byId.addresses.load.lotBy = 'id';
    fs.writeFileSync(path.join(places, 'testville-ma', 'manifest.json'), JSON.stringify(manifest, null, 2));
    const bad = siteline('data', 'import', 'testville-ma', '--from', town);
    assert.equal(bad.code, 1, bad.err + bad.out);
    assert.match(
      bad.out,
      /NOT LIVE: the place stays planned_not_live[\s\S]*address -> lot is 0\.00 % \(0 of 30\), below 90 % \(manifest joinThresholds\.addressToLot = 0\.9 \(the default\)\)/,
    );
    // data check said the same before: one gate, the same verdict and numbers.
    const badCheck = siteline('data', 'check', 'testville-ma', '--from', town);
    assert.equal(badCheck.code, 1, badCheck.err + badCheck.out);
    assert.match(
      badCheck.out,
      /address -> lot is 0\.00 % \(0 of 30\), below 90 % \(manifest joinThresholds\.addressToLot = 0\.9 \(the default\)\)[\s\S]*verdict: NOT LIVE/,
    );
    assert.match(bad.err, /testville-ma was loaded but is NOT live/);
    const refused = siteline('check', '--local', '--json', '4 Elm St, Testville, MA');
    assert.equal(refused.code, 3, refused.err + refused.out);
    const not = JSON.parse(refused.out);
    assert.equal(not.answered, false);
    assert.equal(not.coverage.status, 'planned_not_live');
    assert.match(
      not.coverage.message,
      /Testville is not live: its data is imported but joins too poorly to answer addresses: address -> lot is 0\.00 % \(0 of 30\)/,
    );

    // One gate: a zoning file where a third of the polygons have no district code. data check and data
    // import give the same verdict with the same numbers, naming the manifest setting and its value.
    byId.addresses.load.fields.parcelId = 'MAP_PIN';
    byId.addresses.load.lotBy = 'id_then_point';
    const zoningFile = path.join(town, 'zoning.geojson');
    const zoningDoc = JSON.parse(fs.readFileSync(zoningFile, 'utf8'));
    zoningDoc.features.push({ ...zoningDoc.features[0], properties: { ZONE: '', ZONE_NAME: 'unassigned' } });
    fs.writeFileSync(zoningFile, JSON.stringify(zoningDoc));
    byId.zoning.sha256 = crypto.createHash('sha256').update(fs.readFileSync(zoningFile)).digest('hex');
    fs.writeFileSync(path.join(places, 'testville-ma', 'manifest.json'), JSON.stringify(manifest, null, 2));
    const refusal =
      'zoning (zoning.geojson): 1 of 3 rows rejected (33.3 %), above the limit of 10.0 %; most: 1 x no district code in ZONE [governed by sources[zoning].maxRejectedShare = 0.1 (the default); or --force]';
    const gateCheck = siteline('data', 'check', 'testville-ma', '--from', town);
    assert.equal(gateCheck.code, 1, gateCheck.err + gateCheck.out);
    assert.ok(gateCheck.out.includes(`REFUSED: an import would be refused, nothing imported, for:\n    - ${refusal}`), gateCheck.out);
    const gateImport = siteline('data', 'import', 'testville-ma', '--from', town);
    assert.equal(gateImport.code, 2, gateImport.err + gateImport.out);
    assert.ok(gateImport.err.includes(`refusing to import:\n  - ${refusal}`), gateImport.err);
    console.log(`# spawn timings: ${timings.join(', ')}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
