// Project refusals carry their next step as data (issue 23): the domain's sentence names no MCP tool,
// the MCP answer words the step with the tool (as MCP clients read it before), the web page with its
// buttons. Driven through the domain call, the official MCP SDK client and the project page's form.
import fs from 'node:fs';
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { csrfFrom, getPage, getUserToken, postForm, signUpOrIn } from './support/auth-flow.ts';
import { MCP_TOOLS } from '../src/mcp/registry.ts';
import { SitelineError } from '../src/core/errors.ts';
import { saveToProject } from '../src/projects/save-to-project.ts';
import { updateProject } from '../src/projects/update-project.ts';
import { setProjectMapListing } from '../src/projects/map-listing.ts';

const EMAIL = 'next-step@example.com';
const TOOL_NAMES = new RegExp(`\\b(${MCP_TOOLS.map((t) => t.name).join('|')})\\b`);

let svc: TestServer;
let token: string;
before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], analysisWorkers: { concurrency: 0 } });
  token = await getUserToken(svc.url, EMAIL);
});
after(async () => {
  await svc?.close();
});

async function refusal(p: Promise<unknown>): Promise<SitelineError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof SitelineError, String(err));
    return err;
  }
  assert.fail('the domain call was not refused');
}

test('a project refusal: the domain names no tool and carries next; MCP words it with the tool, the page with its buttons', async () => {
  const [{ account_id: accountId }] = (await svc.ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE lower(email) = $1', [EMAIL])) as [
    { account_id: string },
  ];
  const c = await connectClient(svc.url, 'modern', token);
  try {
    const created = (await c.callTool({
      name: 'saveToProject',
      arguments: { action: 'create', name: 'Next Acorn', address: '11 Acorn St, Cambridge, MA', externalRef: 'crm:next-1', preview: false },
    })) as any;
    const projectId: string = created.structuredContent.project.projectId;
    const other = (await c.callTool({
      name: 'saveToProject',
      arguments: { action: 'create', name: 'Next Other', address: '11 Acorn St, Cambridge, MA', preview: false },
    })) as any;
    const otherId: string = other.structuredContent.project.projectId;

    // Domain: the sentences, and the steps as data.
    const unknown = await refusal(
      saveToProject(svc.ctx, accountId, { action: 'attach_parcels', projectId, parcelExternalIds: ['no-such-lot'], preview: false }),
    );
    assert.deepEqual(unknown.details?.['next'], { action: 'look_up_lot' });
    const clash = await refusal(updateProject(svc.ctx, accountId, { projectId: otherId, externalRef: 'crm:next-1', preview: false }));
    assert.deepEqual(clash.details?.['next'], { action: 'clear_external_ref', projectId });
    const createReceipt: string = created.structuredContent.receipt.receiptId;
    const notReversible = await refusal(updateProject(svc.ctx, accountId, { projectId, undoOperationId: createReceipt, preview: false }));
    assert.deepEqual(notReversible.details?.['next'], { action: 'not_reversible', receiptAction: 'create' });
    await svc.ctx.db.query('DELETE FROM project_lots WHERE project_id = $1', [otherId]); // a project without a build lot (no surface makes one)
    const noPin = await refusal(setProjectMapListing(svc.ctx, accountId, { projectId: otherId, listed: true, preview: false, confirmedByHuman: true }));
    assert.deepEqual(noPin.details?.['next'], { action: 'attach_build_lot', then: 'list_on_map' });
    for (const e of [unknown, clash, notReversible, noPin]) assert.doesNotMatch(e.message, TOOL_NAMES, `a domain sentence names a tool: ${e.message}`);

    // MCP: the same sentence, then the step with the tool and its arguments; `next` in the structured error.
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text: string }[] };
      assert.equal(r.isError, true);
      return { text: r.content[0]!.text, error: r.structuredContent.error }; // the first block is the sentence (a second carries the JSON)
    };
    const mUnknown = await call('saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['no-such-lot'], preview: false });
    assert.equal(mUnknown.text, `${unknown.message} Copy parcelExternalId from a getFeasibilitySnapshot answer (lot.parcelExternalId).`);
    assert.deepEqual(mUnknown.error.next, { action: 'look_up_lot' });
    const mClash = await call('updateProject', { projectId: otherId, externalRef: 'crm:next-1', preview: false });
    assert.equal(mClash.text, `${clash.message} Clear it there first (updateProject externalRef: "") or use another.`);
    const mUndo = await call('updateProject', { projectId, undoOperationId: createReceipt, preview: false });
    assert.equal(
      mUndo.text,
      `Receipt ${createReceipt} is a saveToProject create receipt; only updateProject writes can be undone (saveToProject writes are not reversible on this surface).`,
    );
    const mPin = await call('setProjectMapListing', { projectId: otherId, listed: true, preview: true });
    assert.equal(mPin.text, `${noPin.message} Attach a build lot with saveToProject action attach_parcels (role build), then call setProjectMapListing again.`);
  } finally {
    await c.close();
  }

  // The page: the same refusals name the buttons, never a tool.
  const jar = await signUpOrIn(svc.url, EMAIL);
  const list = await getPage(`${svc.url}/projects`, jar);
  const ids = [...list.body.matchAll(/href="\/projects\/([0-9a-f-]{36})">Next (Acorn|Other)</g)].map((m) => [m[2], m[1]] as const);
  const acorn = ids.find(([n]) => n === 'Acorn')![1];
  const otherPage = ids.find(([n]) => n === 'Other')![1];
  const shown = await getPage(`${svc.url}/projects/${otherPage}`, jar);
  assert.match(
    shown.body,
    /<p id="listing-state">Not listed\. “?[^<]*has no build lot, so it has no pin to show[^<]*Attach a build lot under Lots \(“Attach as build lot”\) first, then list it again\.<\/p>/,
  );
  const csrf = csrfFrom(shown.body);
  await postForm(`${svc.url}/projects/${otherPage}/details`, jar, { csrf, name: 'Next Other', lifecycleStatus: 'prospect', externalRef: 'crm:next-1' });
  const after = (await getPage(`${svc.url}/projects/${otherPage}`, jar)).body;
  assert.match(
    after,
    /<p id="page-message" class="error" role="alert">The external reference is already used by your project “Next Acorn”; each of your projects needs its own\. Clear it on that project first, or use another\. Nothing was changed\.<\/p>/,
  );
  for (const body of [shown.body, after, (await getPage(`${svc.url}/projects/${acorn}`, jar)).body])
    assert.doesNotMatch(body.replace(/<[^>]+>/g, ' '), TOOL_NAMES);
});

test("no sentence in src/projects names an MCP tool (the bare names left are the receipts' stored records)", () => {
  const dir = path.join(import.meta.dirname, '../src/projects');
  const found: string[] = [];
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const code = fs
      .readFileSync(path.join(dir, f), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const m of code.matchAll(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|"(?:[^"\\\n]|\\.)*"/g)) {
      const literal = m[0];
      if (TOOL_NAMES.test(literal) && !/^['"`]\w+['"`]$/.test(literal)) found.push(`${f}: ${literal.slice(0, 120)}`);
    }
  }
  assert.deepEqual(found, []);
});
