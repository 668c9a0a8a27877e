// Control characters in the words stated with an address (district, building type) are bad input on
// every surface and in every place. Where a zoning map gives the district (Cambridge) the stated words
// are not used but were said back in a warning, and outside coverage they were never read: a NUL, an
// escape or a bidirectional override was answered as if plain words (the REST fuzz found the NUL). The
// domain call, a project's lot, the MCP tool and the web page now refuse them alike; the same words
// without them are answered, with the warning that they are not used.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { getPage, getUserToken, signUpOrIn, type CookieJar } from './support/auth-flow.ts';
import { COVERED, OUTSIDE } from './rest-support.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { SitelineError } from '../src/core/errors.ts';
import { saveToProject } from '../src/projects/save-to-project.ts';

let svc: TestServer;
let client: Client;
let jar: CookieJar;
before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], analysisWorkers: { concurrency: 0 } });
  jar = await signUpOrIn(svc.url, 'stated.words@example.com');
  client = await connectClient(svc.url, 'modern', await getUserToken(svc.url, 'stated.words@example.com'));
});
after(async () => {
  await client?.close();
  await svc?.close();
});

const BAD: [key: 'district' | 'buildingType', text: string, words: RegExp][] = [
  ['district', 'C-1\u0000', /^The district holds control characters; state it as plain words\.$/],
  ['district', 'C-\u202E1', /^The district holds control characters; state it as plain words\.$/],
  ['buildingType', 'Detached\u001bHouse', /^The building type holds control characters; state it as plain words\.$/],
];

const sites = (address: string, stated: Record<string, string>) => `${svc.url}/sites?${new URLSearchParams({ address, ...stated })}`;

test("the domain call, a project's lot, the MCP tool and the web page refuse stated words with control characters, in a place with a zoning map and outside coverage", async () => {
  for (const [key, text, words] of BAD) {
    const stated = { district: 'C-1', [key]: text };
    for (const address of [COVERED, OUTSIDE]) {
      await assert.rejects(
        getFeasibilitySnapshot(svc.ctx, address, stated),
        (e: unknown) => e instanceof SitelineError && e.code === 'bad_input' && words.test(e.message),
        `${address} ${JSON.stringify(text)}`,
      );
    }
    // A project's lot, attached with the words (saveToProject's preview writes nothing).
    await assert.rejects(
      saveToProject(svc.ctx, 'acct-stated-words', { action: 'create', name: 'Stated words', address: COVERED, preview: true, ...stated }),
      (e: unknown) => e instanceof SitelineError && e.code === 'bad_input' && words.test(e.message),
      `project ${JSON.stringify(text)}`,
    );
    const r = await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: COVERED, source: 'full', ...stated } });
    const said = (r.content as { text: string }[])[0]!.text;
    assert.equal(r.isError, true, `MCP ${JSON.stringify(text)}: ${said.slice(0, 200)}`);
    assert.match(said, /holds control characters/);
    const page = await getPage(sites(COVERED, stated), jar);
    assert.equal(page.status, 400, `page ${JSON.stringify(text)}`);
    // A NUL is refused with the URL that carries it, before any page (src/http/server.ts).
    assert.match(page.body, text.includes('\u0000') ? /The request URL holds a NUL byte/ : /holds control characters; state it as plain words/);
  }
});

test('the same words without them are answered, saying the zoning map gives the district', async () => {
  const stated = { district: 'C-1', buildingType: 'Detached House' };
  const s = await getFeasibilitySnapshot(svc.ctx, COVERED, stated);
  assert.equal(s.answered, true);
  assert.ok(
    s.address?.warnings.some((w) => /was stated, but Cambridge's zoning map is held/.test(w)),
    JSON.stringify(s.address?.warnings),
  );
  const r = await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: COVERED, source: 'full', ...stated } });
  assert.notEqual(r.isError, true);
  assert.equal((await getPage(sites(COVERED, stated), jar)).status, 200);
});
