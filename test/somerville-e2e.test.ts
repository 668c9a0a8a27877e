// Somerville end to end (issue 46, items 4-6): a real address answers its lot from the MassGIS
// assessor parcels, asks for the district (Somerville's zoning map is not held), and with NR /
// Detached House and a stated driveway access returns cited values through every surface: the MCP
// tool with form elicitation on 2026-07-28 (the official SDK client), the 2025 leg's structured
// refusal, REST, the CLI, the web page in headless Chromium, a project's analysis (the buildable
// footprint on the real lot), its 3D envelope and its PDF. Without the driveway access the values
// that depend on it stay conditional_unresolved. No owner name reaches the database, a response or a
// command's output (owner values are read from the .dbf here only to be searched for). The place's
// postcodes are its own three, not a stray assessor row's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { unzipSync } from 'fflate';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { chromium } from 'playwright-core';
import { startTestServer, createPlacesEnv, ROOT, SHARED_DATA, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { TEST_PASSWORD, getUserToken } from './support/auth-flow.ts';
import { accountIdOf, api, createKey, grant } from './rest-support.ts';
import { startAnalysisWorkers, workerOptions } from '../src/analysis/analysis-workers.ts';
import { readDbfFields } from '../src/importer/readers/dbf.ts';

const ADDRESS = '11 Windom St, Somerville, MA';
const STATEMENT = "stated by the caller; the City's zoning map is not held";
const FRONT = { key: 'driveway', name: 'Driveway access', value: 'Front Driveway Access' };
/** A value's condition, its own or the shared one it names. */
const conditionOf = (s: any, v: any): string => v.condition ?? s.notes?.[v.conditionNote] ?? '';
/** The project the project test makes (NR / Detached House / front driveway access): the web test opens its page. */
let projectId = '';
let footprintSqft = 0;
const ZIP = path.join(SHARED_DATA, 'somerville-ma/parcels/274_SOMERVILLE_basic.zip');

let svc: TestServer;
let token: string;
const EMAIL = 'somerville-e2e@example.com';

/**
 * A few owner values from the parcels' .dbf, decoded here only to be searched for (never printed):
 * long ones that no Address value contains, so a hit can only be a leak.
 */
function ownerProbes(): string[] {
  const files = unzipSync(fs.readFileSync(ZIP), { filter: (f) => f.name.endsWith('.dbf') });
  const dbf = Object.values(files)[0]!;
  const { fields, recordCount, headerLength, recordLength } = readDbfFields(dbf);
  const owner = fields.find((f) => f.name === 'Owner')!;
  const address = fields.find((f) => f.name === 'Address')!;
  const dec = new TextDecoder();
  const cell = (i: number, f: typeof owner) =>
    dec.decode(dbf.subarray(headerLength + i * recordLength + f.offset, headerLength + i * recordLength + f.offset + f.length)).trim();
  const addresses = new Set<string>();
  for (let i = 0; i < recordCount; i++) addresses.add(cell(i, address).toUpperCase());
  const all = [...addresses].join('\n');
  const probes: string[] = [];
  for (let i = 0; i < recordCount && probes.length < 25; i += 97) {
    const o = cell(i, owner).toUpperCase();
    if (o.length >= 10 && !all.includes(o) && !probes.includes(o)) probes.push(o);
  }
  assert.ok(probes.length >= 10, 'enough owner values to search for');
  return probes;
}
const OWNERS = ownerProbes();
/** Whether any owner value appears in a text (the test says how many, never which). */
function owners(text: string): number {
  const up = text.toUpperCase();
  return OWNERS.filter((o) => up.includes(o)).length;
}

before(async () => {
  svc = await startTestServer({ places: ['somerville-ma'], analysisWorkers: { concurrency: 0 } });
  token = await getUserToken(svc.url, EMAIL);
});
after(async () => {
  await svc?.close();
});

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
const textOf = (r: Result) => r.content.map((c) => c.text).join('\n');

async function modernClient(
  answer: (schema: any) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> },
  asked: any[],
): Promise<Client> {
  const client = new Client(
    { name: 'somerville-e2e', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(req.params);
    return answer((req.params as { requestedSchema?: unknown }).requestedSchema) as never;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

test('MCP 2026-07-28: the lot, then a form with the districts and conditions; NR / Detached House / front driveway access answers cited values with their quotes and the sources first', async () => {
  const asked: any[] = [];
  const client = await modernClient(
    () => ({ action: 'accept', content: { district: 'NR', buildingType: 'Detached House', condition_driveway: 'Front Driveway Access' } }),
    asked,
  );
  try {
    const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } })) as Result;
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(asked.length, 1, 'one form');
    const schema = asked[0].requestedSchema;
    assert.deepEqual(schema.properties.district.enum, ['NR', 'UR', 'MR3', 'MR4', 'MR5', 'MR6']);
    assert.ok(schema.properties.buildingType.enum.includes('Detached House'));
    // The conditions a table states values under, read from the rules' tier words: optional, with their values.
    assert.deepEqual(schema.properties.condition_driveway.enum, ['No Driveway Access', 'Side or Rear Driveway Access', 'Front Driveway Access']);
    assert.match(schema.properties.condition_driveway.description, /NR Cottage, Detached House/);
    assert.ok(!schema.required.includes('condition_driveway'));
    assert.match(asked[0].message, /F_758877_2968529/);
    const s = r.structuredContent;
    assert.equal(s.lot.parcelExternalId, 'F_758877_2968529');
    assert.equal(s.zones.primary, 'NR');
    assert.deepEqual(s.zones.districtSource, { kind: 'stated_by_caller', statement: STATEMENT, buildingType: 'Detached House', conditions: [FRONT] });
    assert.equal(s.districtChoice, undefined, 'nothing left to state');
    // The sources of the district and of the condition are in the first text block and the first warning.
    assert.match(
      r.content[0]!.text,
      /NR \/ Detached House[\s\S]*stated by the caller; the City's zoning map is not held[.;] driveway access: Front Driveway Access, stated by the caller/i,
    );
    assert.match(
      s.address.warnings[0],
      /stated by the caller; the City's zoning map is not held\. Driveway access: Front Driveway Access, stated by the caller\./,
    );
    // The side setback by driveway access: 3 ft, the stated row named with its source; 12 ft together.
    const side = s.envelope.minSideYardFt;
    assert.deepEqual([side.value, side.status], [3, 'cited_conditional']);
    assert.match(conditionOf(s, side), /Front Driveway Access \(driveway access, stated by the caller\)$/);
    assert.match(s.citations[side.citation].quote, /Front Driveway Access \| 3 ft$/);
    assert.deepEqual([s.envelope.minSideYardSumFt.value, s.envelope.minLotWidthFt.value], [12, 34]);
    const storeys = s.envelope.maxHeightStoreys;
    assert.equal(storeys.status, 'cited_conditional');
    assert.equal(storeys.value, 2.5);
    const c = s.citations[storeys.citation];
    assert.equal(c.section, '3.1.8');
    assert.equal(c.quote, 'Number of Stories (max) | 2.5');
    assert.match(c.href, /^\/sources\/somerville-ma\/szo\?section=3\.1\.8/);
    assert.equal(s.envelope.maxLotCoveragePct.value, 60);
    assert.equal(s.envelope.maxFootprintSqft.status, 'derived_from_cited');
    assert.deepEqual(s.envelope.maxFootprintSqft.inputs, ['maxLotCoveragePct', 'lot.areaSqft']);
    assert.ok(s.lot.frontageFt.value > 0 && /no other lot shares/.test(s.lot.frontageFt.note), JSON.stringify(s.lot.frontageFt));
    // The quote's link shows the held section with the quote in it.
    const page = await fetch(`${svc.url}${c.href}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Number of Stories/);
    assert.equal(owners(JSON.stringify(r)), 0);
  } finally {
    await client.close();
  }
});

test('MCP: a declined form answers the lot alone; a district that does not exist asks again, naming the districts', async () => {
  const declined = await modernClient(() => ({ action: 'decline' }), []);
  try {
    const r = (await declined.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } })) as Result;
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(r.structuredContent.envelope, undefined);
    assert.equal(r.structuredContent.zones.primary, null);
    assert.equal(r.structuredContent.districtChoice.needs, 'district');
    assert.match(r.content[0]!.text, /declined the district form/);
  } finally {
    await declined.close();
  }
  const asked: any[] = [];
  let n = 0;
  const answers = [
    { district: 'NR', buildingType: 'Apartment Building' },
    // An alley is no condition of the Detached House table (only Backyard Cottage's, in NR).
    { district: 'NR', buildingType: 'Detached House', condition_alley: 'Alley or R-ROW' },
    { district: 'UR', buildingType: 'Apartment House' },
  ];
  const wrong = await modernClient(() => ({ action: 'accept', content: answers[n++]! }), asked);
  try {
    const r = (await wrong.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } })) as Result;
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(asked.length, 3, 'asked again after a building type NR does not allow, and after a condition its table does not have');
    assert.match(asked[1].message, /"Apartment Building" is not a building type of district NR/);
    assert.match(asked[2].message, /"Alley" is not a condition of the Detached House table of district NR\. Its conditions: Driveway access/);
    assert.equal(r.structuredContent.zones.primary, 'UR');
    assert.equal(r.structuredContent.zones.districtSource.buildingType, 'Apartment House');
  } finally {
    await wrong.close();
  }
  // District and type stated, the driveway access not: the form asks for that alone.
  const onlyConditions: any[] = [];
  const cond = await modernClient(() => ({ action: 'accept', content: { condition_driveway: 'Side or Rear Driveway Access' } }), onlyConditions);
  try {
    const r = (await cond.callTool({
      name: 'getFeasibilitySnapshot',
      arguments: { address: ADDRESS, source: 'full', district: 'NR', buildingType: 'Detached House' },
    })) as Result;
    assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual(Object.keys(onlyConditions[0].requestedSchema.properties), ['condition_driveway']);
    assert.match(onlyConditions[0].message, /The Detached House table states minLotWidthFt, minSideYardFt, minSideYardSumFt by driveway access/);
    assert.deepEqual([r.structuredContent.envelope.minSideYardFt.value, r.structuredContent.envelope.minSideYardSumFt.value], [5, 10]);
  } finally {
    await cond.close();
  }
});

test('MCP 2025 leg and a client without elicitation: a structured refusal naming the districts, with the lot; a stated district answers', async () => {
  for (const leg of ['legacy', 'modern'] as const) {
    const client = await connectClient(svc.url, leg, token);
    try {
      const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } })) as Result;
      assert.equal(r.isError, true, `${leg}: ${textOf(r)}`);
      assert.equal(r.structuredContent.error.code, 'district_required');
      assert.deepEqual(
        r.structuredContent.error.districts.map((d: any) => d.code),
        ['NR', 'UR', 'MR3', 'MR4', 'MR5', 'MR6'],
      );
      assert.equal(r.structuredContent.lot.parcelExternalId, 'F_758877_2968529');
      assert.match(r.content[0]!.text, /district set to one of NR, UR, MR3, MR4, MR5, MR6/);
      const ok = (await client.callTool({
        name: 'getFeasibilitySnapshot',
        arguments: { address: ADDRESS, source: 'full', district: 'NR', buildingType: 'Detached House' },
      })) as Result;
      assert.notEqual(ok.isError, true, textOf(ok));
      assert.equal(ok.structuredContent.envelope.maxHeightStoreys.status, 'cited_conditional');
      assert.match(ok.content[0]!.text, /stated by the caller/);
      // Nothing says the driveway access: the values that depend on it stay unknown, and the choice block lists its values.
      const side = ok.structuredContent.envelope.minSideYardFt;
      assert.deepEqual([side.value, side.status], [null, 'conditional_unresolved']);
      assert.equal(ok.structuredContent.districtChoice.needs, 'conditions');
      assert.deepEqual(
        ok.structuredContent.districtChoice.districts[0].conditions.map((c: any) => [c.name, c.values]),
        [['Driveway access', ['No Driveway Access', 'Side or Rear Driveway Access', 'Front Driveway Access']]],
      );
      const bad = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full', district: 'ZZ' } })) as Result;
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /"ZZ" is not a district of Somerville's zoning rules/);
    } finally {
      await client.close();
    }
  }
});

test('REST: without a district the lot and districtChoice, free; with NR / Detached House cited values, one credit', async () => {
  const key = await createKey(svc.url, token, 'somerville');
  await grant(svc.ctx, await accountIdOf(svc.ctx, EMAIL), 5);
  const ask = await api(svc.url, `/api/v1/sites/check?${new URLSearchParams({ address: ADDRESS })}`, { token: key.key });
  assert.equal(ask.status, 200, ask.text);
  assert.equal(ask.headers.get('credits-charged') ?? ask.headers.get('x-credits-charged') ?? '0', '0');
  assert.equal(ask.json.districtChoice.needs, 'district');
  assert.equal(ask.json.lot.parcelExternalId, 'F_758877_2968529');
  const r = await api(svc.url, '/api/v1/sites/check', {
    token: key.key,
    body: { address: ADDRESS, district: 'NR', buildingType: 'Detached House', conditions: ['Driveway access=Front Driveway Access'] },
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.zones.districtSource.statement, STATEMENT);
  assert.deepEqual(r.json.zones.districtSource.conditions, [FRONT]);
  assert.equal(r.json.envelope.minFrontYardFt.value, 10);
  assert.equal(r.json.citations[r.json.envelope.minFrontYardFt.citation].quote, 'Primary Front Setback 1 (min/max) | 10 ft | 20 ft');
  // The 50 ft frontage less the 12 ft the two side setbacks take together (not 2 x 3 ft), from cited values.
  const width = r.json.envelope.buildableWidthFt;
  assert.deepEqual([width.value, width.status, width.inputs], [38, 'derived_from_cited', ['minSideYardFt', 'minSideYardSumFt', 'lot.frontageFt']]);
  const bad = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: ADDRESS, district: 'NR', buildingType: 'Tower' } });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.text, /not a building type of district NR/);
  const badCondition = await api(
    svc.url,
    `/api/v1/sites/check?${new URLSearchParams({ address: ADDRESS, district: 'NR', buildingType: 'Detached House', conditions: 'Driveway access=Back' })}`,
    { token: key.key },
  );
  assert.equal(badCondition.status, 400, badCondition.text);
  assert.match(
    badCondition.json.detail,
    /^"Back" is not a value of Driveway access in the Detached House table of district NR\. Its values: No Driveway Access, Side or Rear Driveway Access, Front Driveway Access\.$/,
  );
  assert.equal(owners(ask.text + r.text), 0);
  // The place's postcodes are the ones a real share of its addresses carry: a stray assessor row's 02135 (Brighton) is not Somerville's.
  const held = await svc.ctx.db.query<{ postcode: string }>(`SELECT postcode FROM place_postcodes WHERE place_id = 'US-MA:somerville' ORDER BY postcode`);
  assert.deepEqual(
    held.map((p) => p.postcode),
    ['02143', '02144', '02145'],
  );
  const brighton = await api(svc.url, `/api/v1/sites/check?${new URLSearchParams({ address: '11 Windom St, MA 02135' })}`, { token: key.key });
  assert.equal(brighton.status, 200, brighton.text);
  assert.equal(brighton.json.answered, false, 'ZIP 02135 alone does not lead to Somerville');
  assert.notEqual(brighton.json.coverage.place?.name, 'Somerville');
});

test('a project keeps the stated district and driveway access: analysis on cited values, the buildable footprint cut from the real lot, attach_reference, PDF with quotes and the sources', async () => {
  const client = await connectClient(svc.url, 'modern', token);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as Result;
    assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
    return r.structuredContent;
  };
  try {
    const created = await call('saveToProject', {
      action: 'create',
      name: 'Windom',
      address: ADDRESS,
      district: 'NR',
      buildingType: 'Detached House',
      conditions: ['Driveway access=Front Driveway Access'],
      preview: false,
    });
    projectId = created.projectId ?? created.project?.projectId;
    const [lotRow] = await svc.ctx.db.query<{ snapshot: string | Record<string, any> }>('SELECT snapshot FROM project_lots WHERE project_id = $1', [projectId]);
    const lot = typeof lotRow!.snapshot === 'string' ? JSON.parse(lotRow!.snapshot) : lotRow!.snapshot;
    assert.deepEqual(lot.statedDistrict, {
      code: 'NR',
      name: 'Neighborhood Residence',
      buildingType: 'Detached House',
      statement: STATEMENT,
      conditions: [FRONT],
    });

    const analysed = async (id: string) => {
      const run = await call('runFeasibilityAnalysis', { projectId: id });
      const w = startAnalysisWorkers(svc.ctx, workerOptions(svc.ctx.config, { concurrency: 1, pollMs: 20 }));
      try {
        for (const deadline = Date.now() + 180_000; ; ) {
          const [r] = await svc.ctx.db.query<{ status: string }>('SELECT status FROM analysis_runs WHERE run_id = $1', [run.runId]);
          if (r?.status === 'succeeded') break;
          assert.ok(r?.status !== 'failed' && Date.now() < deadline, `run ended ${r?.status}`);
          await new Promise((res) => setTimeout(res, 20));
        }
      } finally {
        await w.stop();
      }
      const [stored] = await svc.ctx.db.query<{ result: string }>('SELECT result FROM analysis_runs WHERE run_id = $1', [run.runId]);
      return JSON.parse(stored!.result);
    };
    const analysis = await analysed(projectId);
    assert.deepEqual(
      analysis.governingDistricts.map((d: any) => d.code),
      ['NR'],
    );
    assert.match(
      analysis.notes[0],
      /District NR \(Neighborhood Residence\), building type Detached House, stated by the caller; the City's zoning map is not held\. Driveway access: Front Driveway Access, stated by the caller\./,
    );
    assert.equal(analysis.standards.maxHeightStoreys.status, 'cited_conditional');
    assert.equal(analysis.standards.maxHeightStoreys.citation.section, '3.1.8');
    assert.equal(analysis.standards.minFrontYardFt.value, 10);
    assert.equal(analysis.derived.maxStoreys.value, 2.5);
    assert.deepEqual(
      [analysis.standards.minSideYardFt.value, analysis.standards.minSideYardFt.status, analysis.standards.minSideYardSumFt.value],
      [3, 'cited_conditional', 12],
    );
    // The buildable footprint: the real lot (50 ft along its one unshared side, about 76 ft deep) less 10 ft in front, 20 ft
    // behind and 6 ft a side (half the 12 ft the side setbacks take together), from cited values, inputs and the stated condition named.
    const fp = analysis.derived.buildableFootprintSqft;
    assert.equal(fp.status, 'derived_from_cited', JSON.stringify(fp));
    assert.deepEqual(fp.inputs, ['minFrontYardFt', 'minSideYardFt', 'minSideYardSumFt', 'minRearYardFt', 'maxLotCoveragePct', 'lot.areaSqft']);
    assert.ok(Math.abs(fp.value - (50 - 12) * (23.11 * 3.28084 - 30)) < 60, JSON.stringify(fp));
    assert.match(fp.condition, /minSideYardFt: .*Front Driveway Access \(driveway access, stated by the caller\)/);
    assert.match(fp.note, /Side yards: 6 ft each, half the minimum sum of the side setbacks \(12 ft\)/);
    footprintSqft = fp.value;

    // attach_reference: a real section of the held ordinance, by the citation's sectionUuid.
    const snap = (await client.callTool({
      name: 'getFeasibilitySnapshot',
      arguments: { address: ADDRESS, source: 'full', district: 'NR', buildingType: 'Detached House' },
    })) as Result;
    const cited = snap.structuredContent.citations[snap.structuredContent.envelope.maxHeightStoreys.citation];
    const ref = await call('saveToProject', { action: 'attach_reference', projectId, sectionUuid: cited.sectionUuid, preview: false });
    assert.match(JSON.stringify(ref), /3\.1\.8/);

    const ex = await call('produceProjectReport', { projectId, audience: 'investor', detail: 'detailed', preview: false, confirm: true });
    const pdf = new Uint8Array(await (await fetch(ex.url.startsWith('http') ? ex.url : `${svc.url}${ex.url}`)).arrayBuffer());
    const doc = await getDocument({ data: pdf, useSystemFonts: false, isEvalSupported: false }).promise;
    const pages: string[] = [];
    for (let i = 1; i <= doc.numPages; i++)
      pages.push((await (await doc.getPage(i)).getTextContent()).items.map((it) => ('str' in it ? it.str : '')).join(' '));
    await doc.destroy();
    const text = pages.join(' ').replace(/\s+/g, ' ');
    assert.match(text, /stated by the caller; the City's zoning map is not held; Driveway access: Front Driveway Access, stated by the caller/);
    assert.match(text, /Number of Stories \(max\) \| 2\.5/);
    // The footprint the analysis computed, and the side setback's stated row.
    assert.match(text, new RegExp(`Buildable footprint ${Math.round(footprintSqft).toLocaleString('en-US')}`));
    assert.match(text, /Front Driveway Access \| 3 ft/);
    assert.match(text, /3\.1\.8/);
    assert.equal(owners(text), 0);
  } finally {
    await client.close();
  }
});

test('the web page in headless Chromium: the lot, a choice of district, type and driveway access, then cited values with the sources stated and the 3D envelope on the real lot; the project page draws it from the analysis', async () => {
  const webEmail = EMAIL; // the account that owns the project made above
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
    headless: true,
  });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${svc.url}/signin?next=%2Faccount`);
    await page.fill('#email', webEmail);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(/\/account$/), page.click('#content button[type=submit]')]);
    await page.goto(`${svc.url}/sites?${new URLSearchParams({ address: ADDRESS })}`);
    assert.match((await page.textContent('#district-choice')) ?? '', /stated by the caller; the City's zoning map is not held/);
    assert.equal(await page.locator('#envelope').count(), 0, 'no envelope before a district is stated');
    await page.selectOption('#district', 'NR');
    await page.selectOption('#buildingType', 'Detached House');
    await page.selectOption('#condition-driveway', 'driveway=Front Driveway Access');
    await Promise.all([page.waitForURL(/district=NR/), page.click('#district-form button')]);
    assert.match(
      (await page.textContent('#district-source')) ?? '',
      /District NR, building type Detached House: stated by the caller; the City's zoning map is not held\. Driveway access: Front Driveway Access, stated by the caller\./,
    );
    assert.match((await page.textContent('#envelope')) ?? '', /Number of Stories \(max\) \| 2\.5|2\.5 storeys/);
    assert.match((await page.textContent('#env-minSideYardFt')) ?? '', /3 ft[\s\S]*Front Driveway Access \(driveway access, stated by the caller\)/);
    assert.match((await page.textContent('#citations')) ?? '', /Number of Stories \(max\) \| 2\.5/);
    // The 3D envelope draws on the real lot: the footprint the setbacks leave, on the ground (the NR table limits storeys, not feet).
    const solid = JSON.parse((await page.locator('#envelope-3d [data-envelope-3d]').getAttribute('data-envelope-3d'))!);
    assert.deepEqual([solid.lot, solid.heightFt, solid.heightStoreys], ['F_758877_2968529', null, 2.5]);
    assert.equal(solid.areaSqft, Math.round(footprintSqft), 'the same cut as the analysis footprint');
    assert.match((await page.textContent('#envelope-3d')) ?? '', /6 ft on each side: half the minimum sum of the side setbacks \(12 ft\)/);
    assert.equal(owners(await page.content()), 0);
    // The project page draws the same solid from the analysis's standards (the lot as the project keeps it).
    await page.goto(`${svc.url}/projects/${projectId}`);
    const fromAnalysis = JSON.parse((await page.locator('#envelope-3d [data-envelope-3d]').getAttribute('data-envelope-3d'))!);
    assert.deepEqual([fromAnalysis.heightStoreys, fromAnalysis.areaSqft], [2.5, solid.areaSqft]);
    assert.match((await page.textContent('#envelope-3d')) ?? '', /Front Driveway Access \(driveway access, stated by the caller\)/);
  } finally {
    await browser.close();
  }
});

test('CLI: data check and audit, check asks for the district (exit 2), check --district NR --building-type --condition answers cited values; no owner in any output or the database', async () => {
  type Run = { status: number | null; stdout: string; stderr: string };
  const run = (env: Record<string, string>, ...args: string[]): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'debug' } });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject).on('close', (status) => resolve({ status, stdout, stderr }));
    });
  // data check reads the zipped shapefile through the importer's own readers (the allow-list) and writes no database:
  // it runs while the database the other commands read is made.
  const checking = run({}, 'data', 'check', 'somerville-ma', '--from', SHARED_DATA);
  const env = await createPlacesEnv(['somerville-ma']);
  const outputs: Run[] = [];
  try {
    const imported = await checking;
    outputs.push(imported);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, /lot -> zone not required: no zoning map/);
    assert.match(imported.stdout, /one-line address has no house number/);
    const asks = await run(env.env, 'check', '--local', ADDRESS);
    outputs.push(asks);
    assert.equal(asks.status, 2, asks.stderr);
    assert.match(asks.stdout, /Zoning not stated/);
    assert.match(asks.stdout, /NR\s+Neighborhood Residence: Cottage, Detached House/);
    assert.match(
      asks.stdout,
      /Driveway access \(Cottage, Detached House, [^)]*\): "No Driveway Access", "Side or Rear Driveway Access", "Front Driveway Access"/,
    );
    const answers = await run(
      env.env,
      'check',
      '--local',
      ADDRESS,
      '--district',
      'NR',
      '--building-type',
      'Detached House',
      '--condition',
      'Driveway access=Front Driveway Access',
      '--json',
    );
    outputs.push(answers);
    assert.equal(answers.status, 0, answers.stderr);
    const s = JSON.parse(answers.stdout);
    assert.equal(s.envelope.maxHeightStoreys.value, 2.5);
    assert.equal(s.zones.districtSource.statement, STATEMENT);
    assert.deepEqual([s.zones.districtSource.conditions, s.envelope.minSideYardFt.value], [[FRONT], 3]);
    const audit = await run(env.env, 'data', 'audit', 'somerville-ma', '--sample', '50');
    outputs.push(audit);
    assert.equal(audit.status, 0, audit.stderr);
    assert.equal(owners(outputs.map((r) => r.stdout + r.stderr).join('\n')), 0, 'no owner value in any command output or log line');
  } finally {
    await checking.catch(() => undefined);
    await env.close();
  }
  // The database the server answers from: every Somerville row and report.
  const rows = await svc.ctx.db.query<{ t: string }>(
    `SELECT row_to_json(p)::text AS t FROM parcels p WHERE place_id = 'US-MA:somerville'
     UNION ALL SELECT row_to_json(a)::text FROM addresses a WHERE place_id = 'US-MA:somerville'
     UNION ALL SELECT row_to_json(x)::text FROM places x WHERE place_id = 'US-MA:somerville'
     UNION ALL SELECT row_to_json(r)::text FROM import_runs r WHERE place_id = 'US-MA:somerville'
     UNION ALL SELECT row_to_json(v)::text FROM place_vintages v WHERE place_id = 'US-MA:somerville'`,
  );
  assert.ok(rows.length > 26_000);
  assert.equal(owners(rows.map((r) => r.t).join('\n')), 0, 'no owner value in the database');
  const attrs = await svc.ctx.db.query<{ k: string }>(
    `SELECT DISTINCT json_object_keys(attrs) AS k FROM parcels WHERE place_id = 'US-MA:somerville' ORDER BY 1`,
  );
  assert.deepEqual(
    attrs.map((r) => r.k),
    ['assessorSqft', 'useCodes', 'useDesc'],
  );
});
