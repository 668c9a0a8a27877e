// @engine-independent: every command runs with DATABASE_URL blank, on embedded PGlite in a data directory of its own, so a PostgreSQL run would repeat the PGlite one.
// `siteline rules verify|suggest|cite` and the import gate, through the real binary, on a copy of the
// Somerville place in a temporary places directory (the repository's rules files are never written).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, SHARED_DATA } from '../../test/support/harness.ts';

function siteline(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', SITELINE_SOURCE_DIR: SHARED_DATA, LOG_LEVEL: 'warn', ...env },
    timeout: 240_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function placesCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-rules-cli-'));
  fs.cpSync(path.join(ROOT, 'places'), dir, { recursive: true });
  return dir;
}

test('rules verify: every shipped place verifies (exit 0); a broken citation is listed (exit 1); an unknown place is exit 2', () => {
  for (const slug of fs.readdirSync(path.join(ROOT, 'places'))) {
    const r = siteline(['rules', 'verify', slug]);
    assert.equal(r.code, 0, `${slug}: ${r.err}`);
    assert.match(r.out, new RegExp(`^${slug}: (\\d+) of \\1 citations verify`));
  }
  assert.match(
    siteline(['rules', 'verify', 'somerville-ma']).out,
    /^somerville-ma: 297 of 297 citations verify against szo \(Somerville Zoning Ordinance, sha256 4fff5d66b823…\)/,
  );

  const dir = placesCopy();
  const file = path.join(dir, 'somerville-ma', 'rules.json');
  const rules = JSON.parse(fs.readFileSync(file, 'utf8'));
  rules.districts.NR.buildingTypes['Detached House'].standards.maxLotCoveragePct.value = 65;
  fs.writeFileSync(file, JSON.stringify(rules));
  const bad = siteline(['rules', 'verify', 'somerville-ma'], { SITELINE_PLACES_DIR: dir });
  assert.equal(bad.code, 1);
  assert.match(bad.out, /296 of 297 citations verify/);
  assert.match(
    bad.err,
    /NR \/ Detached House maxLotCoveragePct \(cited_conditional\): szo § 3\.1\.8: the value 65% is not the number "Lot Coverage \(max\) \| 60%" states for the maximum \(60%\)/,
  );
  // data check says the same, and data import refuses it before writing anything.
  const check = siteline(['data', 'check', 'somerville-ma'], { SITELINE_PLACES_DIR: dir });
  assert.equal(check.code, 1);
  assert.match(check.out, /citations: 296 of 297 verify[\s\S]*REFUSED/);
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-rules-cli-data-'));
  const imp = siteline(['data', 'import', 'somerville-ma'], { SITELINE_PLACES_DIR: dir, SITELINE_DATA_DIR: data, SITELINE_AUTO_IMPORT: '0' });
  assert.equal(imp.code, 2, imp.err);
  assert.match(imp.err, /refusing to import: 1 of 297 cited values do not verify[\s\S]*the value 65% is not the number[\s\S]*Nothing was changed/);
  const status = siteline(['data', 'status', '--json'], { SITELINE_PLACES_DIR: dir, SITELINE_DATA_DIR: data, SITELINE_AUTO_IMPORT: '0' });
  const som = (JSON.parse(status.out) as { slug: string; importedAt: string | null }[]).find((p) => p.slug === 'somerville-ma')!;
  assert.equal(som.importedAt, null, 'nothing half-live');

  assert.equal(siteline(['rules', 'verify', 'atlantis-xx']).code, 2);
});

// Long because: one session of the real binary (suggest, cite, then the refusals), each step reading the file the last one wrote.
test('rules suggest finds the table row; rules cite writes a verified citation and refuses what does not verify, writing nothing', () => {
  const s = siteline(['rules', 'suggest', 'somerville-ma', '--district', 'UR', '--building-type', 'Multi-Plex', '--standard', 'minRearYardFt']);
  assert.equal(s.code, 0, s.err);
  assert.match(s.out, /szo § 3\.2\.8 \(3\.2\.8 Multi-Plex\), line \d+ \[table\]: minRearYardFt 20 ft\n {4}Rear setback \(min\) \| 20 ft/);
  const json = JSON.parse(siteline(['rules', 'suggest', 'somerville-ma', '--district', 'NR', '--standard', 'maxHeightStoreys', '--json']).out) as {
    section: string;
    quote: string;
  }[];
  assert.ok(json.some((c) => c.section === '3.1.8' && c.quote === 'Number of Stories (max) | 2.5'));

  const dir = placesCopy();
  const file = path.join(dir, 'somerville-ma', 'rules.json');
  const before = fs.readFileSync(file, 'utf8');
  const env = { SITELINE_PLACES_DIR: dir };
  const base = ['rules', 'cite', 'somerville-ma', '--district', 'NR', '--building-type', 'Duplex', '--standard', 'maxLotCoveragePct', '--section', '3.1.10'];
  const refusals: [string[], RegExp][] = [
    [
      [...base, '--value', '65', '--quote', 'Lot Coverage (max) | 60%'],
      /the value 65% is not the number "Lot Coverage \(max\) \| 60%" states for the maximum \(60%\)\. Nothing was written\./,
    ],
    [[...base, '--value', '61', '--quote', 'Lot Coverage (max) | 61%'], /the quote does not occur in szo/],
    [[...base, '--value', '65', '--quote', 'Lot Coverage (max) | 65%'], /the quote is not in section 3\.1\.10 \(it is in 3\.2\.7\)/],
    [
      [...base.slice(0, -1), '3.2.7', '--value', '65', '--quote', 'Lot Coverage (max) | 65%'],
      /§ 3\.2\.7 \(3\.2\.7 Semi-Detached Triple Decker\) is not Duplex's section 3\.1\.10 of district NR/,
    ],
    [
      [...base.slice(0, 8), 'minFrontYardFt', '--section', '3.1.10', '--value', '10', '--quote', 'Secondary Front Setback 1 (min/max) | 10 ft | 20 ft'],
      /is not the row of minFrontYardFt/,
    ],
    [
      [
        ...base.slice(0, 8),
        'minLotWidthFt',
        '--section',
        '3.1.10',
        '--tiers',
        'No Driveway Access=52; Side or Rear Driveway Access=50; Front Driveway Access=50',
        '--quote',
        'Lot Width (min) | – … No Driveway Access | 50 ft … Side or Rear Driveway Access | 50 ft … Front Driveway Access | 52 ft',
      ],
      /tier 1 \(No Driveway Access\): 52 ft is not what its condition's row/,
    ],
    [[...base.slice(0, -1), '3.1.9', '--value', '60', '--quote', 'Lot Coverage (max) | 60%', '--building-type', 'Nope'], /no building type "Nope"/],
    [[...base.slice(0, -1), '9.9.9', '--value', '60', '--quote', 'Lot Coverage (max) | 60%'], /section 9\.9\.9 is not a section of szo/],
    [
      ['rules', 'cite', 'somerville-ma', '--district', 'NR', '--standard', 'maxHieght', '--value', '3', '--section', '3.1.8', '--quote', 'x y z'],
      /"maxHieght" is not a standard/,
    ],
    [
      [
        'rules',
        'cite',
        'somerville-ma',
        '--district',
        'ZZ',
        '--standard',
        'maxLotCoveragePct',
        '--value',
        '60',
        '--section',
        '3.1.8',
        '--quote',
        'Lot Coverage (max) | 60%',
      ],
      /no district "ZZ"/,
    ],
  ];
  for (const [args, why] of refusals) {
    const r = siteline(args, env);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}`);
    assert.match(r.err, why);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing written');
  }
  // A good one: removed first, then written back by the command, verified.
  const rules = JSON.parse(before);
  delete rules.districts.NR.buildingTypes.Duplex.standards.maxLotCoveragePct;
  fs.writeFileSync(file, JSON.stringify(rules, null, 2) + '\n');
  const ok = siteline([...base, '--value', '60', '--quote', 'Lot Coverage (max) | 60%'], env);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /NR \/ Duplex maxLotCoveragePct: cited_conditional 60, verified in szo § 3\.1\.10/);
  const written = JSON.parse(fs.readFileSync(file, 'utf8')).districts.NR.buildingTypes.Duplex.standards.maxLotCoveragePct;
  assert.deepEqual(written, {
    status: 'cited_conditional',
    value: 60,
    condition: 'Building type: Duplex',
    citation: { document: 'szo', section: '3.1.10', quote: 'Lot Coverage (max) | 60%' },
  });
  assert.equal(siteline(['rules', 'verify', 'somerville-ma'], env).code, 0);

  // Tiers, one per condition the row states; a two-number row only with a reading whose words settle it.
  const again = JSON.parse(fs.readFileSync(file, 'utf8'));
  delete again.districts.UR.buildingTypes['Row Houses'].standards.minSideYardFt;
  delete again.districts.UR.buildingTypes['Multi-Plex'].standards.maxUnitsPerBuilding;
  fs.writeFileSync(file, JSON.stringify(again, null, 2) + '\n');
  const ur = ['rules', 'cite', 'somerville-ma', '--district', 'UR', '--building-type'];
  const tiers = siteline(
    [
      ...ur,
      'Row Houses',
      '--standard',
      'minSideYardFt',
      '--section',
      '3.2.11',
      '--tiers',
      'Party Lot Line=0; Side Lot Line=5',
      '--quote',
      'Side Setback (min) | 5 ft … Party Lot Line | 0 ft … Side Lot Line | 5 ft',
    ],
    env,
  );
  assert.equal(tiers.code, 0, tiers.err);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')).districts.UR.buildingTypes['Row Houses'].standards.minSideYardFt.tiers, [
    { when: ['Party Lot Line'], values: ['0'] },
    { when: ['Side Lot Line'], values: ['5'] },
  ]);
  const units = [...ur, 'Multi-Plex', '--standard', 'maxUnitsPerBuilding', '--section', '3.2.8', '--value', '6', '--quote', 'Dwelling Units (max) | 4 | 6'];
  assert.match(siteline(units, env).err, /gives two numbers under a \(max\) label: which one is the maximum is not written[\s\S]*Nothing was written/);
  const read = siteline([...units, '--reading-quote', 'principal building type with four to six dwelling units'], env);
  assert.equal(read.code, 0, read.err);
  assert.equal(
    JSON.parse(fs.readFileSync(file, 'utf8')).districts.UR.buildingTypes['Multi-Plex'].standards.maxUnitsPerBuilding.reading.support.quote,
    'principal building type with four to six dwelling units',
  );
});
