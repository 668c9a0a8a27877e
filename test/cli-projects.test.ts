// `siteline projects ...` as a client of a running service: the real binary, the real server (with
// its analysis workers) on a random port, a login earned through the real claim page, and the MCP
// project tools over HTTP. Create on a Cambridge address, attach a neighbouring lot, analyse, show
// until the analysis is current, update and undo; names that match several projects list candidates.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { loginThroughCli, runSiteline } from './support/cli.ts';

let svc: TestServer;
let configDir: string;
let env: Record<string, string>;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  configDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'cli-projects-'));
  // No database settings: these runs can only answer through the service.
  env = { SITELINE_CONFIG_DIR: configDir, SITELINE_URL: svc.url, SITELINE_DATA_DIR: path.join(configDir, 'no-database-here'), DATABASE_URL: '' };
});

after(async () => {
  await svc?.close().catch(() => undefined);
  fs.rmSync(configDir, { recursive: true, force: true });
});

const json = async (args: string[]) => {
  const r = await runSiteline([...args, '--json'], env);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

test('not logged in: projects list is exit 4', async () => {
  const r = await runSiteline(['projects', 'list'], env);
  assert.equal(r.code, 4, r.stderr);
  assert.equal(r.stdout, '');
});

test('projects create, attach, analyze, show until current, update, undo; candidates and bad arguments', { timeout: 280_000 }, async () => {
  const login = await loginThroughCli(svc.url, 'cli.projects@example.com', env);
  assert.equal(login.code, 0, login.stderr);

  const empty = await runSiteline(['projects', 'list'], env);
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /No projects yet/);

  // Create on an address: its lot becomes the first build lot.
  const created = await json(['projects', 'create', 'Acorn Corner', '--address', '11 Acorn St, Cambridge, MA']);
  const projectId: string = created.project.projectId;
  assert.match(projectId, /^[0-9a-f-]{36}$/);
  assert.equal(created.project.name, 'Acorn Corner');
  assert.ok(created.receipt.receiptId);

  // The readable list shows it.
  const listed = await runSiteline(['projects', 'list'], env);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`${projectId}  Acorn Corner  \\(prospect\\)`));

  // A neighbouring lot, by the id `siteline check` gives for it, attached by name as context.
  const neighbour = await json(['check', '13 Acorn St, Cambridge, MA']);
  const parcel: string = neighbour.lot.parcelExternalId;
  const preview = await json(['projects', 'attach', 'acorn corner', parcel, '--role', 'context', '--preview']);
  assert.equal(preview.preview, true);
  const attached = await runSiteline(['projects', 'attach', 'acorn corner', parcel, '--role', 'context'], env);
  assert.equal(attached.code, 0, attached.stderr);
  assert.match(attached.stdout, /^Attached/);
  assert.match(attached.stdout, new RegExp(`lots\\.${parcel.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}`));

  // An unknown parcel id is the caller's mistake: exit 2, the tool's sentence on stderr, nothing attached.
  const unknown = await runSiteline(['projects', 'attach', projectId, 'no-such-lot'], env);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /no-such-lot/);
  assert.equal(unknown.stdout, '');

  // Analyse, then show until the workers have made it current (bounded).
  const queued = await json(['projects', 'analyze', projectId]);
  assert.equal(queued.agentStatus.status, 'queued');
  assert.ok(queued.runId);
  let context: any;
  for (let i = 0; i < 120; i++) {
    context = await json(['projects', 'show', projectId]);
    if (context.agentStatus.status === 'current' || context.agentStatus.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(context.agentStatus.status, 'current', JSON.stringify(context.agentStatus));
  assert.equal(context.analysis.runId, queued.runId);
  // The readable hint names the project so that it can be pasted back into a shell as one argument.
  const byName = await runSiteline(['projects', 'analyze', 'Acorn Corner'], env);
  assert.equal(byName.code, 0, byName.stderr);
  assert.match(byName.stdout, /Check with `siteline projects show 'Acorn Corner'`/);
  assert.ok(context.analysis.combinedLotArea.value > 0);
  assert.deepEqual(context.lots.map((l: { role: string }) => l.role).sort(), ['build', 'context'], 'the address lot and a different, neighbouring one');
  const shown = await runSiteline(['projects', 'show', 'Acorn Corner'], env);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /Analysis: current/);
  assert.match(shown.stdout, /Project "Acorn Corner" \(prospect\)/, 'the memory digest');

  // Update, then undo by the receipt id.
  const updated = await json(['projects', 'update', projectId, '--status', 'due_diligence', '--name', 'Acorn Assemblage']);
  const receiptId: string = updated.receipt.receiptId;
  assert.deepEqual(updated.receipt.changes.map((c: { field: string }) => c.field).sort(), ['lifecycleStatus', 'name']);
  const undone = await runSiteline(['projects', 'undo', 'Acorn Assemblage', receiptId], env);
  assert.equal(undone.code, 0, undone.stderr);
  assert.match(undone.stdout, /^Undone: .*Acorn Corner {2}\(prospect\)/);
  assert.match(undone.stdout, /name: Acorn Assemblage → Acorn Corner/);
  // The same undo again is refused by the service (already undone): exit 1, the reason on stderr.
  const again = await runSiteline(['projects', 'undo', projectId, receiptId], env);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /undone/i);

  // A bad lifecycle status is a bad argument: exit 2, and nothing changed.
  const bad = await runSiteline(['projects', 'update', projectId, '--status', 'dreaming'], env);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /due_diligence/);
  assert.equal((await json(['projects', 'show', projectId])).project.lifecycleStatus, 'prospect');

  // A name matching several projects: the candidates, nothing chosen, exit 2.
  await json(['projects', 'create', 'Acorn Annex', '--address', '13 Acorn St, Cambridge, MA']);
  const ambiguous = await runSiteline(['projects', 'analyze', 'acorn'], env);
  assert.equal(ambiguous.code, 2, ambiguous.stderr);
  assert.match(ambiguous.stderr, /"acorn" matches 2 of your projects/);
  assert.match(ambiguous.stderr, new RegExp(`${projectId}  Acorn Corner`));
  assert.match(ambiguous.stderr, /Acorn Annex/);
  const asJson = await runSiteline(['projects', 'show', 'acorn', '--json'], env);
  assert.equal(asJson.code, 2);
  assert.equal(JSON.parse(asJson.stdout).action, 'candidates');

  // Usage errors are found before anything is asked.
  for (const argv of [['projects', 'update', projectId]]) {
    const r = await runSiteline(argv, env);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /--help/);
  }
});
