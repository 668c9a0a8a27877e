// Citations a reader can check, on every surface that shows rules: cityInventory (official MCP client),
// the REST coverage lookup, /coverage/<place> and the /sources page a citation links to; and a
// knowledge section of one place's bylaw refused on a project in another place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { getUserToken } from './support/auth-flow.ts';
import { connectClient } from './mcp-support.ts';
import { api, createKey } from './rest-support.ts';
import type { Client } from '@modelcontextprotocol/client';

let svc: TestServer;
let client: Client;
let token: string;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  client = await connectClient(svc.url, 'modern');
  token = await getUserToken(svc.url, 'citations@example.com');
});
after(async () => {
  await client?.close();
  await svc?.close();
});

async function tool(c: Client, name: string, args: Record<string, unknown>) {
  const r = await c.callTool({ name, arguments: args });
  return { isError: r.isError === true, s: r.structuredContent as any, text: (r.content as { text: string }[]).map((x) => x.text).join('\n') };
}

test('cityInventory for Somerville, MA: a live place (not imported into this database) whose cited values each carry their quote', async () => {
  const inv = await tool(client, 'cityInventory', { city: 'Somerville', region: 'MA' });
  assert.equal(inv.isError, false, inv.text);
  assert.equal(inv.s.place.status, 'live_unavailable');
  assert.ok(inv.s.rules.citedValues >= 150, `${inv.s.rules.citedValues} cited values`);
  assert.deepEqual(
    inv.s.rules.documents.map((d: any) => [d.id, d.href]),
    [['szo', '/sources/somerville-ma/szo']],
  );
  assert.deepEqual(
    inv.s.rules.districts.map((d: any) => d.code),
    ['NR', 'UR', 'MR3', 'MR4', 'MR5', 'MR6'],
  );
  assert.equal(inv.s.rules.district, undefined, 'in full only when asked');

  const nr = await tool(client, 'cityInventory', { geoDivisionId: 'US-MA:somerville', district: 'NR' });
  const d = nr.s.rules.district;
  assert.equal(d.code, 'NR');
  const dh = d.buildingTypes.find((t: any) => t.name === 'Detached House');
  const cov = dh.standards.find((v: any) => v.standard === 'maxLotCoveragePct');
  assert.deepEqual([cov.status, cov.value, cov.unit], ['cited_conditional', 60, 'percent']);
  assert.deepEqual([cov.citation.document, cov.citation.section, cov.citation.quote], ['szo', '3.1.8', 'Lot Coverage (max) | 60%']);
  // Every cited value of the district names words that the service's own page finds in the section.
  const cited = [...d.standards, ...d.buildingTypes.flatMap((t: any) => t.standards), ...d.uses].filter((v: any) => v.citation);
  assert.equal(cited.length, d.citedValues);
  for (const v of cited.slice(0, 12)) {
    const page = await fetch(`${svc.url}${v.citation.href}`);
    const body = await page.text();
    assert.equal(page.status, 200, v.citation.href);
    assert.match(body, /The quote is in this section/, v.citation.href);
    assert.match(body, /<mark id="quote">/);
  }
  // Cambridge cites nothing: its inventory says so, and counts no cited value.
  const cam = await tool(client, 'cityInventory', { city: 'Cambridge', region: 'MA' });
  assert.equal(cam.s.rules.citedValues, 0);
  assert.deepEqual(cam.s.rules.documents, []);
  const bad = await tool(client, 'cityInventory', { city: 'Somerville', region: 'MA', district: 'XX-9' });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /no district "XX-9".*Districts: NR, UR/);
});

test('the /sources page: the quote highlighted in its section; a quote not in the section is said so; unknown documents are 404', async () => {
  const ok = await fetch(`${svc.url}/sources/somerville-ma/szo?section=3.1.8&quote=${encodeURIComponent('Number of Stories (max) | 2.5')}`);
  const body = await ok.text();
  assert.equal(ok.status, 200);
  assert.match(body, /<mark id="quote">Number of Stories \(max\) \| 2\.5<\/mark>/);
  assert.match(body, /4fff5d66b823f2bccde6783db74144e4112c13f7b5526e68d3c0bea28afb9ac6/, "the held copy's digest is shown");
  const wrong = await (await fetch(`${svc.url}/sources/somerville-ma/szo?section=3.1.7&quote=${encodeURIComponent('Number of Stories (max) | 2.5')}`)).text();
  assert.match(wrong, /The quote is not in this section of the held text/);
  const index = await (await fetch(`${svc.url}/sources/somerville-ma/szo`)).text();
  assert.match(index, /3\.1\.8 Detached House/);
  assert.equal((await fetch(`${svc.url}/sources/somerville-ma/nope`)).status, 404);
  assert.equal((await fetch(`${svc.url}/sources/somerville-ma/szo?section=99.9`)).status, 404);
  assert.equal((await fetch(`${svc.url}/sources/nowhere/szo`)).status, 404);
});

test('/coverage/somerville-ma lists every district with its values and quotes, each linked to the text', async () => {
  const res = await fetch(`${svc.url}/coverage/somerville-ma`);
  const body = await res.text();
  assert.equal(res.status, 200);
  for (const code of ['NR', 'UR', 'MR3', 'MR4', 'MR5', 'MR6']) assert.match(body, new RegExp(`id="district-${code}"`));
  assert.match(body, /<q>Lot Coverage \(max\) \| 60%<\/q>/);
  assert.match(body, /href="\/sources\/somerville-ma\/szo\?section=3\.1\.8&amp;quote=/);
  const one = await (await fetch(`${svc.url}/coverage/somerville-ma?district=MR4`)).text();
  assert.match(one, /id="district-MR4"/);
  assert.doesNotMatch(one, /id="district-NR"/);
  assert.equal((await fetch(`${svc.url}/coverage/nowhere-xx`)).status, 404);
});

test('REST coverage lookup: with a district, its rules in full, each cited value with its quote', async () => {
  const { key } = await createKey(svc.url, token);
  const r = await api(svc.url, '/api/v1/coverage?city=Somerville&region=MA&district=UR', { token: key });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.placeStatus, 'live_unavailable');
  const ur = r.json.rules;
  assert.equal(ur.code, 'UR');
  const quotes = ur.buildingTypes
    .flatMap((t: any) => t.standards)
    .filter((v: any) => v.status === 'cited_conditional')
    .map((v: any) => v.citation.quote);
  assert.ok(quotes.length > 20 && quotes.every((q: string) => q.length > 3));
  const noDistrict = await api(svc.url, '/api/v1/coverage?lat=42.39&lng=-71.1&district=UR', { token: key });
  assert.equal(noDistrict.status, 400);
  assert.match(noDistrict.text, /district goes with city or geoDivisionId/);
});

test("attach_reference: a section of Somerville's bylaw is refused on a Cambridge project, with the reason; attached where it belongs", async () => {
  const c = await connectClient(svc.url, 'modern', token);
  try {
    const nr = await tool(c, 'cityInventory', { city: 'Somerville', region: 'MA', district: 'NR' });
    const uuid = nr.s.rules.district.buildingTypes[1].standards[0].citation.sectionUuid;
    const p = await tool(c, 'saveToProject', { action: 'create', name: 'Citations Site', lat: 42.357579, lng: -71.109315, preview: false });
    assert.equal(p.isError, false, p.text);
    const refused = await tool(c, 'saveToProject', { action: 'attach_reference', projectId: p.s.project.projectId, sectionUuid: uuid, preview: false });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /Section 3\.1\.8 is from Somerville Zoning Ordinance \(Somerville\); "Citations Site" is in Cambridge/);
    const refs = await svc.ctx.db.query('SELECT 1 FROM project_references WHERE project_id = $1', [p.s.project.projectId]);
    assert.equal(refs.length, 0, 'nothing attached');
    // A project in Somerville (no surface can make one yet: Somerville has no lots) takes it.
    await svc.ctx.db.query(`UPDATE projects SET place_id = 'US-MA:somerville' WHERE project_id = $1`, [p.s.project.projectId]);
    const attached = await tool(c, 'saveToProject', { action: 'attach_reference', projectId: p.s.project.projectId, sectionUuid: uuid, preview: false });
    assert.equal(attached.isError, false, attached.text);
    assert.equal(attached.s.reference.section, '3.1.8');
    const ctxt = await tool(c, 'getProjectContext', { projectId: p.s.project.projectId, documentsLimit: 5, evidenceLimit: 0 });
    assert.deepEqual(
      ctxt.s.documents.items.map((d: any) => d.sectionUuid),
      [uuid],
    );
    assert.match(ctxt.s.documents.items[0].excerpt ?? '', /Detached House|3\.1\.8/);
  } finally {
    await c.close();
  }
});
