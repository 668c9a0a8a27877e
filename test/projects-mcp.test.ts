// Projects and the feasibility analysis over the official MCP SDK client, on both protocol legs:
// saveToProject, updateProject, runFeasibilityAnalysis and getProjectContext with real user tokens
// earned over real HTTP, two accounts, and the real queue and workers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient, type Leg } from './mcp-support.ts';
import { getUserToken } from './support/auth-flow.ts';
import { ManualClock } from '../src/clock.ts';
import { LIFECYCLE_STATUSES } from '../src/projects/project-fields.ts';
import { sectionUuidOf } from '../src/rules/knowledge-sections.ts';
import { startAnalysisWorkers, workerOptions, type RunningWorkers } from '../src/analysis/analysis-workers.ts';

let svc: TestServer;
let clock: ManualClock;
let tokenA: string;
let tokenB: string;

before(async () => {
  clock = new ManualClock(Date.now());
  // No workers inside the server: each test starts the real workers when it wants runs to execute.
  svc = await startTestServer({ places: ['cambridge-ma'], clock, analysisWorkers: { concurrency: 0 } });
  tokenA = await getUserToken(svc.url, 'owner-a@example.com');
  tokenB = await getUserToken(svc.url, 'owner-b@example.com');
});
after(async () => {
  await svc?.close();
});

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
async function call(c: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await c.callTool({ name, arguments: args })) as Result;
}
const text = (r: Result) => r.content.map((c) => c.text).join('\n');
const ok = (r: Result) => {
  assert.notEqual(r.isError, true, text(r));
  return r.structuredContent;
};
const fails = (r: Result, re: RegExp) => {
  assert.equal(r.isError, true, `expected an error, got ${text(r)}`);
  assert.match(text(r), re);
  return r.structuredContent;
};

async function counts() {
  const [row] = await svc.ctx.db.query<{ p: number; r: number; l: number; q: number; refs: number }>(
    `SELECT (SELECT count(*)::int FROM projects) AS p, (SELECT count(*)::int FROM receipts) AS r, (SELECT count(*)::int FROM project_lots) AS l,
            (SELECT count(*)::int FROM analysis_runs) AS q, (SELECT count(*)::int FROM project_references) AS refs`,
  );
  return row!;
}

async function withWorkers<T>(fn: (w: RunningWorkers) => Promise<T>): Promise<T> {
  const w = startAnalysisWorkers(svc.ctx, workerOptions(svc.ctx.config, { concurrency: 1, pollMs: 20 }));
  try {
    return await fn(w);
  } finally {
    await w.stop();
  }
}

async function waitForRun(runId: string): Promise<void> {
  // Polls (no timed assertion): generous, so a loaded machine does not fail the test.
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; ) {
    const [r] = await svc.ctx.db.query<{ status: string }>('SELECT status FROM analysis_runs WHERE run_id = $1', [runId]);
    if (r && (r.status === 'succeeded' || r.status === 'failed')) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`run ${runId} did not finish`);
}

for (const leg of ['modern', 'legacy'] as Leg[]) {
  const n = (s: string) => `${leg} ${s}`;

  test(`${leg}: neither projectId nor project lists the caller's projects on every tool and writes or queues nothing`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    try {
      const before = await counts();
      for (const [tool, args] of [
        ['saveToProject', { action: 'attach_parcels', parcelExternalIds: ['97-128'], preview: false }],
        ['saveToProject', { action: 'attach_reference', sectionUuid: '00000000-0000-5000-8000-000000000000', preview: false }],
        ['updateProject', { name: 'x', preview: false }],
        ['runFeasibilityAnalysis', {}],
        ['getProjectContext', { documentsLimit: 5, evidenceLimit: 5 }],
      ] as const) {
        const s = ok(await call(a, tool, args));
        assert.equal(s.action, 'listed', tool);
        assert.equal(s.written, false);
        assert.ok(Array.isArray(s.projects));
      }
      assert.deepEqual(await counts(), before, 'nothing written, nothing queued');
    } finally {
      await a.close();
    }
  });

  test(`${leg}: create geocodes the address server-side, previews write nothing, coordinates are never re-geocoded, an unplaceable address says why`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    try {
      const before = await counts();
      const pv = ok(await call(a, 'saveToProject', { action: 'create', name: n('Acorn Preview'), address: '11 Acorn St, Cambridge, MA', preview: true }));
      assert.equal(pv.preview, true);
      assert.ok(pv.changes.some((c: any) => c.field === 'name' && c.after === n('Acorn Preview')));
      assert.ok(pv.changes.some((c: any) => c.field === 'lots'));
      assert.equal(pv.projectId, null, "a create's preview has no id: the id is drawn when the project is written");
      assert.deepEqual(await counts(), before, 'preview wrote nothing');

      const created = ok(await call(a, 'saveToProject', { action: 'create', name: n('Acorn Infill'), address: '11 Acorn St, Cambridge, MA', preview: false }));
      assert.match(created.project.projectId, /^[0-9a-f-]{36}$/);
      assert.equal(created.project.lifecycleStatus, 'prospect');
      assert.deepEqual(
        created.lots.map((l: any) => [l.parcelExternalId, l.role]),
        [['97-120', 'build']],
      );
      assert.ok(created.receipt.receiptId);
      assert.equal(created.receipt.operation, 'project.save');
      assert.equal(created.receipt.projectId, created.project.projectId);
      assert.ok(Math.abs(created.project.location.lat - 42.357676) < 1e-5);

      // An address that does not exist with coordinates of 13 Acorn St: the point decides, the address is kept as written.
      const byPoint = ok(
        await call(a, 'saveToProject', {
          action: 'create',
          name: n('By Point'),
          address: '999 Nowhere Rd, Cambridge, MA',
          lat: 42.357579,
          lng: -71.109315,
          preview: false,
        }),
      );
      assert.deepEqual(
        byPoint.lots.map((l: any) => l.parcelExternalId),
        ['97-128'],
      );
      assert.equal(byPoint.project.address, '999 Nowhere Rd, Cambridge, MA');
      assert.deepEqual(byPoint.project.location, { lat: 42.357579, lng: -71.109315 });
      // A real address far from the supplied point: the point still decides, and the disagreement is said.
      const apart = ok(
        await call(a, 'saveToProject', {
          action: 'create',
          name: n('Apart'),
          address: '57 Inman St, Cambridge, MA',
          lat: 42.357579,
          lng: -71.109315,
          preview: true,
        }),
      );
      assert.ok(
        apart.warnings.some((w: string) =>
          /The address "57 Inman St, Cambridge, MA" matches lot \S+, about [\d,]+ m from the supplied point; the point was used/.test(w),
        ),
        JSON.stringify(apart.warnings),
      );
      const near = ok(
        await call(a, 'saveToProject', {
          action: 'create',
          name: n('Near'),
          address: '13 Acorn St, Cambridge, MA',
          lat: 42.357579,
          lng: -71.109315,
          preview: true,
        }),
      );
      assert.ok(!(near.warnings ?? []).some((w: string) => /from the supplied point/.test(w)), JSON.stringify(near.warnings));

      const mid = await counts();
      const bad = fails(
        await call(a, 'saveToProject', { action: 'create', name: n('Nowhere'), address: '999 Nowhere Rd, Cambridge, MA', preview: false }),
        /could not be placed: geocode_failed/,
      );
      assert.equal(bad.error.coverageStatus, 'geocode_failed');
      fails(await call(a, 'saveToProject', { action: 'create', name: n('Out'), address: '1 Main St, Springfield, IL', preview: false }), /could not be placed/);
      fails(await call(a, 'saveToProject', { action: 'create', name: n('Half'), lat: 42.3, preview: false }), /both lat and lng/);
      assert.deepEqual(await counts(), mid, 'a failed create writes nothing');
    } finally {
      await a.close();
    }
  });

  test(`${leg}: attach_parcels within radiusM (default 150 m), roles, preview, idempotent retry, and lots keep their facts`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    try {
      const p = ok(await call(a, 'saveToProject', { action: 'create', name: n('Attach Site'), address: '11 Acorn St, Cambridge, MA', preview: false }));
      const projectId = p.project.projectId;
      const before = await counts();
      const pv = ok(await call(a, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-128'], preview: true }));
      assert.deepEqual(
        pv.changes.map((c: any) => c.field),
        ['lots.97-128'],
      );
      assert.deepEqual(await counts(), before);

      const far = fails(
        await call(a, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-128', '267.2-261'], preview: false }),
        /267\.2-261.*larger radiusM/,
      );
      assert.equal(far.error.parcelExternalId, '267.2-261');
      fails(
        await call(a, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['no-such-lot'], preview: false }),
        /no-such-lot is not a known lot/,
      );
      assert.deepEqual(await counts(), before, 'a refused attach attaches nothing, not even the good id');

      const first = ok(
        await call(a, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-128'], idempotencyKey: `${leg}-k1`, preview: false }),
      );
      assert.deepEqual(first.lots.map((l: any) => [l.parcelExternalId, l.role]).sort(), [
        ['97-120', 'build'],
        ['97-128', 'build'],
      ]);
      const afterFirst = await counts();
      const retry = ok(
        await call(a, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-128'], idempotencyKey: `${leg}-k1`, preview: false }),
      );
      assert.equal(retry.receipt.receiptId, first.receipt.receiptId, 'the first receipt comes back');
      assert.equal(retry.idempotentReplay, true);
      assert.deepEqual(await counts(), afterFirst, 'the retry wrote nothing');
      const clash = fails(
        await call(a, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-127'], idempotencyKey: `${leg}-k1`, preview: false }),
        /already used for a different call/,
      );
      assert.equal(clash.error.receiptId, first.receipt.receiptId);
      assert.deepEqual(await counts(), afterFirst);

      // The build lot attached again as context (a neighbour whose address resolves to it) is refused with the reason, in preview too; nothing changes.
      for (const preview of [true, false]) {
        const demote = fails(
          await call(a, 'saveToProject', {
            action: 'attach_parcels',
            projectId,
            parcelExternalIds: ['97-127', '97-120'],
            role: 'context',
            radiusM: 5000,
            preview,
          }),
          /97-120 is already this project's build lot/,
        );
        assert.deepEqual([demote.error.code, demote.error.currentRole, demote.error.parcelExternalId], ['bad_input', 'build', '97-120']);
      }
      assert.deepEqual(await counts(), afterFirst, 'a refused demotion writes nothing');
      const still = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 0, evidenceLimit: 0 }));
      assert.deepEqual(
        still.lots.map((l: any) => [l.parcelExternalId, l.role]).sort(),
        [
          ['97-120', 'build'],
          ['97-128', 'build'],
        ],
        'the build lot keeps its role',
      );

      const ctxLot = ok(
        await call(a, 'saveToProject', {
          action: 'attach_parcels',
          project: n('attach site'),
          parcelExternalIds: ['97-127', '267.2-261'],
          role: 'context',
          radiusM: 5000,
          preview: false,
        }),
      );
      assert.deepEqual(ctxLot.lots.map((l: any) => [l.parcelExternalId, l.role]).sort(), [
        ['267.2-261', 'context'],
        ['97-120', 'build'],
        ['97-127', 'context'],
        ['97-128', 'build'],
      ]);

      // Facts as attached: a later change to the parcel row does not reach the project.
      await svc.ctx.db.query(`UPDATE parcels SET area_m2 = area_m2 * 2 WHERE parcel_ext_id = '97-127'`);
      try {
        const c = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
        const lot = c.lots.find((l: any) => l.parcelExternalId === '97-127');
        assert.equal(lot.areaM2, 287); // as attached (WGS 84 ellipsoid), not the doubled row
      } finally {
        await svc.ctx.db.query(`UPDATE parcels SET area_m2 = area_m2 / 2 WHERE parcel_ext_id = '97-127'`);
      }
    } finally {
      await a.close();
    }
  });

  test(`${leg}: name matching is case-insensitive, exact beats partial, several matches list candidates and choose nothing`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    try {
      for (const name of ['Inman', 'Inman Square East', 'Inman Square West'])
        ok(await call(a, 'saveToProject', { action: 'create', name: n(name), lat: 42.357579, lng: -71.109315, preview: false }));
      const exact = ok(await call(a, 'getProjectContext', { project: n('INMAN').toUpperCase(), documentsLimit: 0, evidenceLimit: 0 }));
      assert.equal(exact.project.name, n('Inman'));
      const partial = ok(await call(a, 'getProjectContext', { project: n('inman square e'), documentsLimit: 0, evidenceLimit: 0 }));
      assert.equal(partial.project.name, n('Inman Square East'));
      const before = await counts();
      const several = ok(await call(a, 'runFeasibilityAnalysis', { project: n('inman square') }));
      assert.equal(several.action, 'candidates');
      assert.deepEqual(several.candidates.map((c: any) => c.name).sort(), [n('Inman Square East'), n('Inman Square West')]);
      assert.ok(several.candidates.every((c: any) => /^[0-9a-f-]{36}$/.test(c.projectId)));
      const upd = ok(await call(a, 'updateProject', { project: n('INMAN SQUARE'), name: 'x', preview: false }));
      assert.equal(upd.action, 'candidates');
      assert.deepEqual(await counts(), before, 'candidates: nothing queued or written');
      fails(await call(a, 'getProjectContext', { project: n('no such project'), documentsLimit: 0, evidenceLimit: 0 }), /None of your projects/);
      // A project whose point has no lot (in the ocean): the analysis refuses up front instead of a run that finishes with nothing.
      const wet = ok(await call(a, 'saveToProject', { action: 'create', name: n('At Sea'), lat: 0, lng: 0, preview: false }));
      assert.ok(wet.warnings.some((w: string) => /No loaded lot lies under the supplied point/.test(w)));
      const queuedBefore = await svc.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM analysis_runs WHERE project_id = $1', [wet.project.projectId]);
      fails(
        await call(a, 'runFeasibilityAnalysis', { projectId: wet.project.projectId }),
        /has no build lot, so there is nothing to analyse; nothing was queued\. Attach a build lot with saveToProject/,
      );
      assert.deepEqual(await svc.ctx.db.query('SELECT count(*)::int AS n FROM analysis_runs WHERE project_id = $1', [wet.project.projectId]), queuedBefore);
      // A long bad id is quoted back cut short, not whole.
      const longId = fails(
        await call(a, 'getProjectContext', { projectId: 'x'.repeat(5000), documentsLimit: 0, evidenceLimit: 0 }),
        /projectId "x{77}\.\.\." is not a UUID/,
      );
      assert.ok(JSON.stringify(longId).length < 1000, 'the error does not repeat the 5,000 characters');
    } finally {
      await a.close();
    }
  });

  test(`${leg}: updateProject patches fields, rejects unknown lifecycle values and bad or clashing externalRefs, previews, undoes and refuses a stale undo`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    try {
      const p = ok(
        await call(a, 'saveToProject', {
          action: 'create',
          name: n('Update Me'),
          lat: 42.357579,
          lng: -71.109315,
          externalRef: `crm:${leg}-1`,
          preview: false,
        }),
      );
      const other = ok(await call(a, 'saveToProject', { action: 'create', name: n('Other'), lat: 42.357579, lng: -71.109315, preview: false }));
      const projectId = p.project.projectId;
      const bad = fails(await call(a, 'updateProject', { projectId, lifecycleStatus: 'finished', preview: false }), /not accepted/);
      assert.deepEqual(bad.error.acceptedValues, [...LIFECYCLE_STATUSES]);
      for (const v of LIFECYCLE_STATUSES)
        assert.match(text(await call(a, 'updateProject', { projectId, lifecycleStatus: 'nope', preview: true })), new RegExp(v));
      fails(await call(a, 'updateProject', { projectId, externalRef: 'no-colon', preview: false }), /<system>:<id>/);
      const clash = fails(
        await call(a, 'updateProject', { projectId: other.project.projectId, externalRef: `crm:${leg}-1`, preview: false }),
        /already used by your project/,
      );
      assert.equal(clash.error.otherProjectId, projectId);
      fails(
        await call(a, 'saveToProject', { action: 'create', name: n('Third'), lat: 42.357579, lng: -71.109315, externalRef: `crm:${leg}-1`, preview: false }),
        new RegExp(projectId),
      );

      const before = await counts();
      const pv = ok(await call(a, 'updateProject', { projectId, name: n('Renamed'), lifecycleStatus: 'due_diligence', preview: true }));
      assert.deepEqual(pv.changes, [
        { field: 'name', before: n('Update Me'), after: n('Renamed') },
        { field: 'lifecycleStatus', before: 'prospect', after: 'due_diligence' },
      ]);
      assert.deepEqual(await counts(), before);

      const r1 = ok(await call(a, 'updateProject', { projectId, name: n('Renamed'), lifecycleStatus: 'due_diligence', externalRef: null, preview: false }));
      assert.equal(r1.project.name, n('Renamed'));
      assert.equal(r1.project.externalRef, null, 'null clears externalRef');
      const stored = ok(await call(a, 'updateProject', { projectId, undoOperationId: r1.receipt.receiptId, preview: true }));
      assert.equal(stored.storedReceipt.receiptId, r1.receipt.receiptId);
      assert.deepEqual(stored.wouldRestore, { name: n('Update Me'), lifecycleStatus: 'prospect', externalRef: `crm:${leg}-1` });
      assert.equal(stored.undoable, true);

      const undone = ok(await call(a, 'updateProject', { projectId, undoOperationId: r1.receipt.receiptId, preview: false }));
      assert.equal(undone.receipt.undoes, r1.receipt.receiptId);
      assert.notEqual(undone.receipt.receiptId, r1.receipt.receiptId, 'the undo has its own receipt');
      assert.equal(undone.project.name, n('Update Me'));
      assert.equal(undone.project.externalRef, `crm:${leg}-1`);
      fails(await call(a, 'updateProject', { projectId, undoOperationId: r1.receipt.receiptId, preview: false }), /already undone/);

      // Changed again since: the undo is refused with the reason, nothing applied.
      const r2 = ok(await call(a, 'updateProject', { projectId, name: n('Second'), preview: false }));
      ok(await call(a, 'updateProject', { projectId, name: n('Third'), preview: false }));
      const pvRefused = ok(await call(a, 'updateProject', { projectId, undoOperationId: r2.receipt.receiptId, preview: true }));
      assert.equal(pvRefused.undoable, false);
      fails(
        await call(a, 'updateProject', { projectId, undoOperationId: r2.receipt.receiptId, preview: false }),
        /Refused: name is now .*Third.*changed again since/,
      );
      const ctx = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 0, evidenceLimit: 0 }));
      assert.equal(ctx.project.name, n('Third'));
      const saveReceipt = p.receipt.receiptId;
      fails(await call(a, 'updateProject', { projectId, undoOperationId: saveReceipt, preview: false }), /only updateProject writes can be undone/);
    } finally {
      await a.close();
    }
  });

  test(`${leg}: another account never sees, matches or touches a project`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    const b = await connectClient(svc.url, leg, tokenB);
    try {
      const p = ok(
        await call(a, 'saveToProject', {
          action: 'create',
          name: n('Private Site'),
          address: '11 Acorn St, Cambridge, MA',
          externalRef: `erp:${leg}-private`,
          preview: false,
        }),
      );
      const projectId = p.project.projectId;
      const r = ok(await call(a, 'updateProject', { projectId, lifecycleStatus: 'design', preview: false }));
      const listB = ok(await call(b, 'getProjectContext', { documentsLimit: 1, evidenceLimit: 1 }));
      assert.ok(!listB.projects.some((x: any) => x.projectId === projectId), 'not listed to B');
      const before = await counts();
      fails(await call(b, 'getProjectContext', { projectId, documentsLimit: 1, evidenceLimit: 1 }), /No project of yours/);
      fails(await call(b, 'getProjectContext', { project: n('Private Site'), documentsLimit: 1, evidenceLimit: 1 }), /None of your projects/);
      fails(await call(b, 'updateProject', { projectId, name: 'taken', preview: false }), /No project of yours/);
      fails(await call(b, 'runFeasibilityAnalysis', { projectId }), /No project of yours/);
      fails(await call(b, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-128'], preview: false }), /No project of yours/);
      // B's own project cannot undo A's receipt, and B may reuse A's externalRef (unique per creator).
      const mine = ok(
        await call(b, 'saveToProject', {
          action: 'create',
          name: n('Private Site'),
          lat: 42.357579,
          lng: -71.109315,
          externalRef: `erp:${leg}-private`,
          preview: false,
        }),
      );
      fails(await call(b, 'updateProject', { projectId: mine.project.projectId, undoOperationId: r.receipt.receiptId, preview: true }), /No receipt of yours/);
      const after = await counts();
      assert.equal(after.p, before.p + 1, "only B's own project was written");
      const still = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 1, evidenceLimit: 1 }));
      assert.equal(still.project.name, n('Private Site'));
      assert.equal(still.project.lifecycleStatus, 'design');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test(`${leg}: attach_reference by sectionUuid, shown in documents; an unknown sectionUuid is an error`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    try {
      const p = ok(await call(a, 'saveToProject', { action: 'create', name: n('Reference Site'), lat: 42.357579, lng: -71.109315, preview: false }));
      // The one place whose rules cite a held document is Somerville, which has no lots: the project is
      // placed there by hand (citations-surfaces.test.ts shows a Cambridge project refusing the section).
      await svc.ctx.db.query(`UPDATE projects SET place_id = 'US-MA:somerville' WHERE project_id = $1`, [p.project.projectId]);
      const { loadPlaceRules } = await import('../src/rules/load-rules.ts');
      const rules = await loadPlaceRules(svc.ctx, 'somerville-ma');
      const cited = Object.values(rules.districts)
        .flatMap((d) => d.uses)
        .find((v) => v?.citation)!.citation!;
      assert.equal(cited.sectionUuid, sectionUuidOf('somerville-ma', cited.document, cited.section), 'every citation carries its sectionUuid');
      const r = ok(
        await call(a, 'saveToProject', { action: 'attach_reference', projectId: p.project.projectId, sectionUuid: cited.sectionUuid, preview: false }),
      );
      assert.equal(r.reference.section, cited.section);
      const again = ok(
        await call(a, 'saveToProject', { action: 'attach_reference', projectId: p.project.projectId, sectionUuid: cited.sectionUuid, preview: false }),
      );
      assert.equal(again.written, false);
      const c = ok(await call(a, 'getProjectContext', { projectId: p.project.projectId, documentsLimit: 5, evidenceLimit: 5 }));
      assert.deepEqual(
        c.documents.items.map((d: any) => d.sectionUuid),
        [cited.sectionUuid],
      );
      const none = ok(await call(a, 'getProjectContext', { projectId: p.project.projectId, documentsLimit: 0, evidenceLimit: 0 }));
      assert.deepEqual(none.documents.items, []);
      assert.equal(none.documents.hasMore, true);
      fails(
        await call(a, 'getProjectContext', { projectId: p.project.projectId, documentsLimit: 51, evidenceLimit: 0 }),
        /documentsLimit must be an integer from 0 to 50/,
      );
      fails(
        await call(a, 'saveToProject', {
          action: 'attach_reference',
          projectId: p.project.projectId,
          sectionUuid: '00000000-0000-5000-8000-000000000000',
          preview: false,
        }),
        /No knowledge section/,
      );
    } finally {
      await a.close();
    }
  });

  test(`${leg}: runFeasibilityAnalysis enqueues and returns at once; the re-check interval; current; deterministic byte-identical results; inputsChanged`, async () => {
    const a = await connectClient(svc.url, leg, tokenA);
    try {
      const p = ok(
        await call(a, 'saveToProject', {
          action: 'create',
          name: n('Analysis Site'),
          address: '11 Acorn St, Cambridge, MA',
          externalRef: `crm:${leg}-analysis`,
          preview: false,
        }),
      );
      const projectId = p.project.projectId;
      const none = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
      assert.deepEqual(none.agentStatus, { status: 'none' });
      assert.equal(none.analysis, null);

      const q1 = ok(await call(a, 'runFeasibilityAnalysis', { projectId }));
      assert.equal(q1.agentStatus.status, 'queued');
      assert.ok(q1.receiptId && q1.runId);
      const recheck = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
      assert.equal(recheck.agentStatus.status, 'queued');
      assert.equal(recheck.recheck.retryAfterSeconds, 15);
      assert.equal(recheck.memoryDigest, undefined, 'no heavy work inside the interval');
      clock.advance(6_000);
      assert.equal(ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 })).recheck.retryAfterSeconds, 9);
      clock.advance(10_000);
      const queuedFull = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
      assert.equal(queuedFull.agentStatus.status, 'queued', 'after the interval the full context comes back, still queued');
      assert.ok(queuedFull.memoryDigest);

      await withWorkers(async () => {
        await waitForRun(q1.runId);
        const q2 = ok(await call(a, 'runFeasibilityAnalysis', { project: n('analysis site') }));
        await waitForRun(q2.runId);
        const runs = await svc.ctx.db.query<{ result: string; inputs_digest: string; status: string }>(
          'SELECT result, inputs_digest, status FROM analysis_runs WHERE project_id = $1 ORDER BY enqueued_at',
          [projectId],
        );
        assert.deepEqual(
          runs.map((r) => r.status),
          ['succeeded', 'succeeded'],
        );
        assert.equal(runs[0]!.result, runs[1]!.result, 'two runs on the same inputs: byte-identical results');
        assert.equal(runs[0]!.inputs_digest, runs[1]!.inputs_digest);

        const c = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
        assert.deepEqual({ status: c.agentStatus.status, inputsChanged: c.agentStatus.inputsChanged }, { status: 'current', inputsChanged: false });
        assert.equal(c.external_ref, `crm:${leg}-analysis`);
        const an = c.analysis;
        assert.deepEqual(an.combinedLotArea, { value: 1994, unit: 'sqft', basis: 'parcel_geometry' });
        assert.deepEqual(
          an.governingDistricts.map((d: any) => d.code),
          ['C-1'],
        );
        // Cambridge's C-1 values are unverified_default: indicative, never cited.
        assert.equal(an.standards.maxHeightFt.status, 'unverified_default');
        assert.deepEqual([an.derived.maxHeightFt.value, an.derived.maxHeightFt.status], [45, 'unverified_default']);
        assert.deepEqual([an.derived.maxStoreys.value, an.derived.maxStoreys.status], [4, 'unverified_default']);
        // FAR has no value (unverified_default, null) and coverage is not_extracted: unknown, never zero.
        for (const k of ['buildableFootprintSqft', 'gfaEnvelopeSqft']) {
          assert.equal(an.derived[k].value, null, k);
          assert.ok(
            ['not_extracted', 'conditional_unresolved', 'missing', 'site_specific_schedule'].includes(an.derived[k].status),
            `${k}: ${an.derived[k].status}`,
          );
        }
        assert.match(c.memoryDigest, /Analysis Site/);
        assert.match(c.memoryDigest, /97-120/);
        assert.match(c.memoryDigest, /C-1/);
        assert.match(c.memoryDigest, /Analysis: current/);
        // The floor area from a FAR without a number is unknown, not 0 sq ft.
        assert.deepEqual([an.derived.maxFloorAreaSqft.value, an.derived.maxFloorAreaSqft.status], [null, 'unverified_default']);
        assert.match(c.memoryDigest, /lot 1,994 sqft \(from the parcel geometry\)/);
        assert.doesNotMatch(c.memoryDigest, /undefined|\b0 sqft/);
        const again = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
        assert.equal(again.memoryDigest, c.memoryDigest, 'the digest is deterministic');

        ok(await call(a, 'saveToProject', { action: 'attach_parcels', projectId, parcelExternalIds: ['97-128'], preview: false }));
        const changed = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
        assert.deepEqual({ status: changed.agentStatus.status, inputsChanged: changed.agentStatus.inputsChanged }, { status: 'current', inputsChanged: true });
        const q3 = ok(await call(a, 'runFeasibilityAnalysis', { projectId }));
        await waitForRun(q3.runId);
        clock.advance(16_000);
        const fresh = ok(await call(a, 'getProjectContext', { projectId, documentsLimit: 5, evidenceLimit: 5 }));
        assert.equal(fresh.agentStatus.inputsChanged, false);
        assert.equal(fresh.analysis.combinedLotArea.value, 1994 + 3646, 'both build lots (areas on the WGS 84 ellipsoid)');
        const history = await svc.ctx.db.query('SELECT 1 FROM analysis_runs WHERE project_id = $1', [projectId]);
        assert.equal(history.length, 3, 'history is kept');
      });
    } finally {
      await a.close();
    }
  });
}
