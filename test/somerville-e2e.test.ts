// Somerville end to end (issue 46, items 4-6): a real address answers its lot from the MassGIS
// assessor parcels, asks for the district (Somerville's zoning map is not held), and with NR /
// Detached House returns cited values through every surface: the MCP tool with form elicitation on
// 2026-07-28 (the official SDK client), the 2025 leg's structured refusal, REST, the CLI, the web page
// in headless Chromium, a project's analysis, its 3D envelope and its PDF. No owner name reaches the
// database, a response or a command's output (owner values are read from the .dbf here only to be searched for).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { unzipSync } from 'fflate';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { chromium } from 'playwright-core';
import { startTestServer, createPlacesEnv, ROOT, SHARED_DATA, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { TEST_PASSWORD, getUserToken, signUpOrIn } from './support/auth-flow.ts';
import { accountIdOf, api, createKey, grant } from './rest-support.ts';
import { startAnalysisWorkers, workerOptionsFromEnv } from '../src/analysis/analysis-workers.ts';
import { readDbfFields } from '../src/importer/readers/dbf.ts';

const ADDRESS = '11 Windom St, Somerville, MA';
const STATEMENT = "stated by the caller; the City's zoning map is not held";
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
  const cell = (i: number, f: typeof owner) => dec.decode(dbf.subarray(headerLength + i * recordLength + f.offset, headerLength + i * recordLength + f.offset + f.length)).trim();
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

async function modernClient(answer: (schema: any) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }, asked: any[]): Promise<Client> {
  const client = new Client({ name: 'somerville-e2e', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(req.params);
    return answer((req.params as { requestedSchema?: unknown }).requestedSchema) as never;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

test('MCP 2026-07-28: the lot, then a form with the districts; NR / Detached House answers cited values with their quotes and the source first', async () => {
  const asked: any[] = [];
  const client = await modernClient(() => ({ action: 'accept', content: { district: 'NR', buildingType: 'Detached House' } }), asked);
  try {
    const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } })) as Result;
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(asked.length, 1, 'one form');
    const schema = asked[0].requestedSchema;
    assert.deepEqual(schema.properties.district.enum, ['NR', 'UR', 'MR3', 'MR4', 'MR5', 'MR6']);
    assert.ok(schema.properties.buildingType.enum.includes('Detached House'));
    assert.match(asked[0].message, /F_758877_2968529/);
    const s = r.structuredContent;
    assert.equal(s.lot.parcelExternalId, 'F_758877_2968529');
    assert.equal(s.zones.primary, 'NR');
    assert.deepEqual(s.zones.districtSource, { kind: 'stated_by_caller', statement: STATEMENT, buildingType: 'Detached House' });
    // The source of the district is in the first text block and the first warning.
    // (first among the warnings, right after the lot and the zone)
    assert.match(r.content[0]!.text, /zone NR \/ Detached House\. District NR \(Neighborhood Residence\), building type Detached House, stated by the caller; the City's zoning map is not held\./);
    assert.match(s.address.warnings[0], /stated by the caller/);
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
  const wrong = await modernClient(() => (n++ === 0 ? { action: 'accept', content: { district: 'NR', buildingType: 'Apartment Building' } } : { action: 'accept', content: { district: 'UR', buildingType: 'Apartment House' } }), asked);
  try {
    const r = (await wrong.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } })) as Result;
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(asked.length, 2, 'asked again after a building type NR does not allow');
    assert.match(asked[1].message, /"Apartment Building" is not a building type of district NR/);
    assert.equal(r.structuredContent.zones.primary, 'UR');
    assert.equal(r.structuredContent.zones.districtSource.buildingType, 'Apartment House');
  } finally {
    await wrong.close();
  }
});

test('MCP 2025 leg and a client without elicitation: a structured refusal naming the districts, with the lot; a stated district answers', async () => {
  for (const leg of ['legacy', 'modern'] as const) {
    const client = await connectClient(svc.url, leg, token);
    try {
      const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } })) as Result;
      assert.equal(r.isError, true, `${leg}: ${textOf(r)}`);
      assert.equal(r.structuredContent.error.code, 'district_required');
      assert.deepEqual(r.structuredContent.error.districts.map((d: any) => d.code), ['NR', 'UR', 'MR3', 'MR4', 'MR5', 'MR6']);
      assert.equal(r.structuredContent.lot.parcelExternalId, 'F_758877_2968529');
      assert.match(r.content[0]!.text, /district set to one of NR, UR, MR3, MR4, MR5, MR6/);
      const ok = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full', district: 'NR', buildingType: 'Detached House' } })) as Result;
      assert.notEqual(ok.isError, true, textOf(ok));
      assert.equal(ok.structuredContent.envelope.maxHeightStoreys.status, 'cited_conditional');
      assert.match(ok.content[0]!.text, /stated by the caller/);
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
  const r = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: ADDRESS, district: 'NR', buildingType: 'Detached House' } });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.zones.districtSource.statement, STATEMENT);
  assert.equal(r.json.envelope.minFrontYardFt.value, 10);
  assert.equal(r.json.citations[r.json.envelope.minFrontYardFt.citation].quote, 'Primary Front Setback 1 (min/max) | 10 ft | 20 ft');
  const bad = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: ADDRESS, district: 'NR', buildingType: 'Tower' } });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.text, /not a building type of district NR/);
  assert.equal(owners(ask.text + r.text), 0);
});

test('a project keeps the stated district: analysis on cited values, buildable footprint on the real lot, attach_reference, PDF with quotes and the source', async () => {
  const client = await connectClient(svc.url, 'modern', token);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as Result;
    assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
    return r.structuredContent;
  };
  try {
    const created = await call('saveToProject', { action: 'create', name: 'Windom', address: ADDRESS, district: 'NR', buildingType: 'Detached House', preview: false });
    const projectId = created.projectId ?? created.project?.projectId;
    const [lotRow] = await svc.ctx.db.query<{ snapshot: string | Record<string, any> }>('SELECT snapshot FROM project_lots WHERE project_id = $1', [projectId]);
    const lot = typeof lotRow!.snapshot === 'string' ? JSON.parse(lotRow!.snapshot) : lotRow!.snapshot;
    assert.deepEqual(lot.statedDistrict, { code: 'NR', name: 'Neighborhood Residence', buildingType: 'Detached House', statement: STATEMENT });

    const analysed = async (id: string) => {
      const run = await call('runFeasibilityAnalysis', { projectId: id });
      const w = startAnalysisWorkers(svc.ctx, workerOptionsFromEnv({}, { concurrency: 1, pollMs: 20 }));
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
    assert.deepEqual(analysis.governingDistricts.map((d: any) => d.code), ['NR']);
    assert.match(analysis.notes[0], /District NR \(Neighborhood Residence\), building type Detached House, stated by the caller/);
    assert.equal(analysis.standards.maxHeightStoreys.status, 'cited_conditional');
    assert.equal(analysis.standards.maxHeightStoreys.citation.section, '3.1.8');
    assert.equal(analysis.standards.minFrontYardFt.value, 10);
    assert.equal(analysis.derived.maxStoreys.value, 2.5);
    // Detached House's side setback depends on the driveway access, which nobody stated: the footprint says so, never guesses.
    assert.equal(analysis.derived.buildableFootprintSqft.status, 'conditional_unresolved');
    assert.match(analysis.derived.buildableFootprintSqft.note, /minSideYardFt is conditional_unresolved/);

    // A type whose yards are plain (UR / Apartment House, a neighbouring lot of the same street): the footprint is cut
    // from the real lot, from its one unshared side, and derived from cited values with its inputs named.
    const other = await call('saveToProject', { action: 'create', name: 'Windom UR', address: ADDRESS, district: 'UR', buildingType: 'Apartment House', preview: false });
    const ur = await analysed(other.projectId ?? other.project?.projectId);
    const fp = ur.derived.buildableFootprintSqft;
    assert.equal(fp.status, 'derived_from_cited', JSON.stringify(fp));
    assert.deepEqual(fp.inputs, ['minFrontYardFt', 'minSideYardFt', 'minRearYardFt', 'maxLotCoveragePct', 'lot.areaSqft']);
    assert.ok(fp.value > 0 && fp.value < 3755 * 0.65 + 1, JSON.stringify(fp));

    // The 3D envelope and the footprint on the project page draw on the real lot, from its one unshared side.
    const ctxRes = await call('getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 });
    assert.match(JSON.stringify(ctxRes), /NR/);

    // attach_reference: a real section of the held ordinance, by the citation's sectionUuid.
    const snap = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full', district: 'NR', buildingType: 'Detached House' } })) as Result;
    const cited = snap.structuredContent.citations[snap.structuredContent.envelope.maxHeightStoreys.citation];
    const ref = await call('saveToProject', { action: 'attach_reference', projectId, sectionUuid: cited.sectionUuid, preview: false });
    assert.match(JSON.stringify(ref), /3\.1\.8/);

    const ex = await call('produceProjectReport', { projectId, audience: 'investor', detail: 'detailed', preview: false, confirm: true });
    const pdf = new Uint8Array(await (await fetch(ex.url.startsWith('http') ? ex.url : `${svc.url}${ex.url}`)).arrayBuffer());
    const doc = await getDocument({ data: pdf, useSystemFonts: false, isEvalSupported: false }).promise;
    const pages: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) pages.push((await (await doc.getPage(i)).getTextContent()).items.map((it) => ('str' in it ? it.str : '')).join(' '));
    await doc.destroy();
    const text = pages.join(' ').replace(/\s+/g, ' ');
    assert.match(text, /stated by the caller; the City's zoning map is not held/);
    assert.match(text, /Number of Stories \(max\) \| 2\.5/);
    assert.match(text, /3\.1\.8/);
    assert.equal(owners(text), 0);
  } finally {
    await client.close();
  }
});

test('the web page in headless Chromium: the lot, a choice of district, then cited values with the source stated', async () => {
  const webEmail = 'somerville-web@example.com';
  await signUpOrIn(svc.url, webEmail);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${svc.url}/signin?next=%2Faccount`);
    await page.fill('#email', webEmail);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(/\/account$/), page.click('#content button[type=submit]')]);
    await page.goto(`${svc.url}/sites?${new URLSearchParams({ address: ADDRESS })}`);
    assert.match(await page.textContent('#district-choice') ?? '', /stated by the caller; the City's zoning map is not held/);
    assert.equal(await page.locator('#envelope').count(), 0, 'no envelope before a district is stated');
    await page.selectOption('#district', 'NR');
    await page.selectOption('#buildingType', 'Detached House');
    await Promise.all([page.waitForURL(/district=NR/), page.click('#district-form button')]);
    assert.match(await page.textContent('#district-source') ?? '', /District NR, building type Detached House: stated by the caller/);
    assert.match(await page.textContent('#envelope') ?? '', /Number of Stories \(max\) \| 2\.5|2\.5 storeys/);
    assert.match(await page.textContent('#citations') ?? '', /Number of Stories \(max\) \| 2\.5/);
    assert.equal(owners(await page.content()), 0);
  } finally {
    await browser.close();
  }
});

test('CLI: data check and audit, check asks for the district (exit 2), check --district NR --building-type answers cited values; no owner in any output or the database', async () => {
  const env = await createPlacesEnv(['somerville-ma']);
  try {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env.env, LOG_LEVEL: 'debug' }, timeout: 300_000 });
    // data check reads the zipped shapefile through the importer's own readers (the allow-list), prints every reject with its example.
    const imported = run('data', 'check', 'somerville-ma', '--from', SHARED_DATA);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, /lot -> zone not required: no zoning map/);
    assert.match(imported.stdout, /one-line address has no house number/);
    const asks = run('check', '--local', ADDRESS);
    assert.equal(asks.status, 2, asks.stderr);
    assert.match(asks.stdout, /Zoning not stated/);
    assert.match(asks.stdout, /NR\s+Neighborhood Residence: Cottage, Detached House/);
    const answers = run('check', '--local', ADDRESS, '--district', 'NR', '--building-type', 'Detached House', '--json');
    assert.equal(answers.status, 0, answers.stderr);
    const s = JSON.parse(answers.stdout);
    assert.equal(s.envelope.maxHeightStoreys.value, 2.5);
    assert.equal(s.zones.districtSource.statement, STATEMENT);
    const audit = run('data', 'audit', 'somerville-ma', '--sample', '200');
    assert.equal(audit.status, 0, audit.stderr);
    const outputs = [imported, asks, answers, audit].map((r) => r.stdout + r.stderr).join('\n');
    assert.equal(owners(outputs), 0, 'no owner value in any command output or log line');
  } finally {
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
  const attrs = await svc.ctx.db.query<{ k: string }>(`SELECT DISTINCT json_object_keys(attrs) AS k FROM parcels WHERE place_id = 'US-MA:somerville' ORDER BY 1`);
  assert.deepEqual(attrs.map((r) => r.k), ['assessorSqft', 'useCodes', 'useDesc']);
});
