// Instances own places (issue 51, item 3; docs/scaling.md, "Instances own places"): an instance told which
// places it owns keeps hot indexes only for those, answers every other place through SQL and never loads
// it, and its answers are byte-identical to the owner's. Two real servers over the same data, asked through
// the official MCP client; what each loaded is read from its /metrics.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { getUserToken } from './support/auth-flow.ts';
import { canonicalJson } from '../src/core/canonical-json.ts';
import { loadConfig, ConfigError } from '../src/config.ts';
import { placeOwners, placeOwnership } from '../src/places/place-ownership.ts';

const TOKEN = 'ownership-metrics-0123456789';
const CAMBRIDGE = 'US-MA:cambridge';
const ADDRESSES = ['11 Acorn St, Cambridge, MA', '57 Inman St, Cambridge, MA', '1 Nowhere Pl, Cambridge, MA', '812 Massachusetts Ave, Cambridge, MA'];

let owner: TestServer;
let other: TestServer;
let ownerClient: Client;
let otherClient: Client;

before(async () => {
  // The owner names Cambridge; the other instance owns another place only.
  [owner, other] = await Promise.all([
    startTestServer({
      places: ['cambridge-ma'],
      env: { SITELINE_PLACES: 'cambridge-ma' },
      config: { metricsToken: TOKEN },
      analysisWorkers: { concurrency: 0 },
    }),
    startTestServer({
      places: ['cambridge-ma'],
      env: { SITELINE_PLACES: 'somerville-ma' },
      config: { metricsToken: TOKEN },
      analysisWorkers: { concurrency: 0 },
    }),
  ]);
  ownerClient = await connectClient(owner.url, 'modern', await getUserToken(owner.url, 'owner@example.com'));
  otherClient = await connectClient(other.url, 'modern', await getUserToken(other.url, 'other@example.com'));
});
after(async () => {
  await ownerClient?.close();
  await otherClient?.close();
  await Promise.all([owner?.close(), other?.close()]);
});

/** One hot index figure from the instance's /metrics (0 when the series is absent). */
async function metric(svc: TestServer, series: string): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/** A tool's answer as bytes, without the time it was made. */
async function answer(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
  assert.ok(r.structuredContent && !r.isError && !('error' in r.structuredContent), `${name} answered: ${JSON.stringify(r.structuredContent)}`);
  const s = structuredClone(r.structuredContent);
  delete s['generatedAt'];
  return canonicalJson(s);
}

test('the owner loads its place and answers from memory; the other instance answers through SQL, never loads it, with the same bytes', async () => {
  for (const address of ADDRESSES) await answer(ownerClient, 'getFeasibilitySnapshot', { address, source: 'full' });
  // the owner's index for Cambridge loads in the background after its first miss
  for (let i = 0; i < 600 && (await metric(owner, 'siteline_hot_index_places')) < 1; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await metric(owner, 'siteline_hot_index_places'), 1, 'the owner holds Cambridge');
  const hitsBefore = await metric(owner, 'siteline_hot_index_reads_total{result="hit"}');
  for (const address of ADDRESSES) {
    for (const [tool, args] of [
      ['getFeasibilitySnapshot', { address, source: 'full' }],
      ['previewSiteCoverage', { address }],
    ] as const) {
      const mine = await answer(ownerClient, tool, args);
      const theirs = await answer(otherClient, tool, args);
      assert.equal(theirs, mine, `${tool} ${address}: the same bytes from the owner (memory) and the other instance (SQL)`);
    }
  }
  assert.equal(
    await answer(otherClient, 'cityInventory', { geoDivisionId: CAMBRIDGE }),
    await answer(ownerClient, 'cityInventory', { geoDivisionId: CAMBRIDGE }),
  );
  assert.ok((await metric(owner, 'siteline_hot_index_reads_total{result="hit"}')) > hitsBefore, 'the owner answered from its index');
  // give a load that the other instance might have started time to finish, then look: none
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await metric(other, 'siteline_hot_index_events_total{event="load"}'), 0, 'the other instance loaded nothing');
  assert.equal(await metric(other, 'siteline_hot_index_places'), 0);
  assert.equal(await metric(other, 'siteline_hot_index_reads_total{result="hit"}'), 0);
  assert.equal(
    await metric(other, 'siteline_hot_index_reads_total{result="miss"}'),
    0,
    'no read of an unowned place is counted as a miss (a miss starts a load)',
  );
  assert.ok((await metric(other, 'siteline_hot_index_reads_total{result="unowned"}')) > 0, 'its reads of Cambridge are counted as unowned');
  assert.equal(await metric(owner, 'siteline_hot_index_reads_total{result="unowned"}'), 0);
});

test('hashed ownership: every instance computes the same table, each place has its owners, a new instance moves only its share', () => {
  const ids = Array.from({ length: 1000 }, (_, i) => `US-XX:place-${i}`);
  const two = ['web1', 'web2'];
  const owns = two.map((instance) => placeOwnership({ kind: 'hashed', instance, instances: two, ownersPerPlace: 1 }));
  const shares = owns.map((o) => ids.filter((id) => o({ geoDivisionId: id })).length);
  assert.equal(shares[0]! + shares[1]!, 1000, 'each place has exactly one owner');
  assert.ok(
    shares.every((n) => n > 400 && n < 600),
    `about half each: ${shares.join(', ')}`,
  );
  // a third instance takes about a third, and every place that moves moves to it
  const three = [...two, 'web3'];
  let moved = 0;
  for (const id of ids) {
    const before = placeOwners(id, two)[0];
    const now = placeOwners(id, three)[0];
    if (before !== now) {
      moved++;
      assert.equal(now, 'web3', `${id} moved between two old instances`);
    }
  }
  assert.ok(moved > 250 && moved < 420, `about a third moved: ${moved}`);
  // two owners a place: both instances own everything with two of them
  const both = two.map((instance) => placeOwnership({ kind: 'hashed', instance, instances: two, ownersPerPlace: 2 }));
  assert.ok(ids.every((id) => both.every((o) => o({ geoDivisionId: id }))));
  // named: by slug or by id
  const named = placeOwnership({ kind: 'named', places: ['cambridge-ma', 'US-TX:paradise'] });
  assert.ok(
    named({ geoDivisionId: CAMBRIDGE, slug: 'cambridge-ma' }) &&
      named({ geoDivisionId: 'US-TX:paradise' }) &&
      !named({ geoDivisionId: 'US-MA:somerville', slug: 'somerville-ma' }),
  );
});

test('the configuration: SITELINE_PLACES or SITELINE_INSTANCE within SITELINE_INSTANCES, refused when half-said', () => {
  const env = (e: Record<string, string>) => loadConfig({ LOG_LEVEL: 'silent', ...e });
  assert.equal(env({}).placeOwnership, undefined);
  assert.deepEqual(env({ SITELINE_PLACES: ' cambridge-ma, somerville-ma ,' }).placeOwnership, { kind: 'named', places: ['cambridge-ma', 'somerville-ma'] });
  assert.deepEqual(env({ SITELINE_INSTANCE: 'web2', SITELINE_INSTANCES: 'web1,web2,web3', SITELINE_OWNERS_PER_PLACE: '2' }).placeOwnership, {
    kind: 'hashed',
    instance: 'web2',
    instances: ['web1', 'web2', 'web3'],
    ownersPerPlace: 2,
  });
  assert.throws(
    () => env({ SITELINE_INSTANCE: 'web4', SITELINE_INSTANCES: 'web1,web2' }),
    (e: Error) => e instanceof ConfigError && /SITELINE_INSTANCE: "web4" is not one of/.test(e.message),
  );
  assert.throws(() => env({ SITELINE_INSTANCES: 'web1,web2' }), /SITELINE_INSTANCE: required/);
  assert.throws(() => env({ SITELINE_INSTANCE: 'web1' }), /SITELINE_INSTANCES: required/);
  assert.throws(() => env({ SITELINE_PLACES: 'cambridge-ma', SITELINE_INSTANCE: 'web1', SITELINE_INSTANCES: 'web1' }), /SITELINE_PLACES/);
  assert.throws(() => env({ SITELINE_PLACES: 'Cambridge MA' }), /SITELINE_PLACES/);
});
