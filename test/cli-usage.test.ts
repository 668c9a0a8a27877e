// `siteline usage` through the real bin, logged in as a person is (the stored identity from the real
// claim flow): the project report export meter (records.exports) and the REST API credit, as the
// service counts them, in text and with --json; not logged in -> exit 4, nothing else touched.
// Staff raise or lower an account's monthly export allowance on the running service (issue 47, item
// 6): the real bin as the machine's operator, and usage, the account page and getProjectContext show it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { claimUserIdentity, getPage } from './support/auth-flow.ts';
import { connectClient } from './mcp-support.ts';
import { cliSandbox, runSiteline } from './support/cli.ts';
import { sampleReportInput } from './support/report-fixture.ts';
import { composeReport } from '../src/reports/compose-report.ts';
import { SitelineError } from '../src/core/errors.ts';
import { REPORT_EXPORTS_PER_MONTH, exportRequestKey, saveExport } from '../src/reports/export-store.ts';
import { addCredit } from '../src/billing/credit-ledger.ts';

let svc: TestServer;
let configDir: string;
let env: Record<string, string>;
before(async () => {
  svc = await startTestServer();
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  configDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'usage-cli-'));
  env = { SITELINE_CONFIG_DIR: configDir, SITELINE_URL: svc.url, DATABASE_URL: '' };
});
after(async () => {
  await svc?.close();
  if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
});

test('siteline usage: report exports used this month and the credit balance, in text and --json', async () => {
  const email = 'usage-cli@example.com';
  const { identityAssertion } = await claimUserIdentity(svc.url, email);
  fs.writeFileSync(path.join(configDir, 'credentials.json'), JSON.stringify({ server: svc.url, email, identity_assertion: identityAssertion }), {
    mode: 0o600,
  });
  const accountId = (await svc.ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [email]))[0]!.account_id;

  const fresh = await runSiteline(['usage', '--json'], env);
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.deepEqual(
    { ...JSON.parse(fresh.stdout).reportExports, period: 'p', resetsAt: 'r' },
    { meter: 'records.exports', period: 'p', used: 0, allowance: REPORT_EXPORTS_PER_MONTH, remaining: REPORT_EXPORTS_PER_MONTH, resetsAt: 'r' },
  );

  // Two confirmed exports (two different requests) spend the meter twice; a grant gives credit.
  const report = await composeReport(sampleReportInput());
  for (const audience of ['investor', 'resident']) {
    await saveExport(svc.ctx, { accountId, request: exportRequestKey({ projectId: 'p-usage', audience }), title: 'Usage test', report });
  }
  await addCredit(svc.ctx, { accountId, kind: 'grant', credits: 7, reference: 'usage test' });

  const json = await runSiteline(['usage', '--json'], env);
  assert.equal(json.code, 0, json.stderr);
  const u = JSON.parse(json.stdout);
  const period = new Date().toISOString().slice(0, 7);
  assert.deepEqual(u.reportExports, {
    meter: 'records.exports',
    period,
    used: 2,
    allowance: REPORT_EXPORTS_PER_MONTH,
    remaining: REPORT_EXPORTS_PER_MONTH - 2,
    resetsAt: new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)).toISOString(),
  });
  assert.equal(u.balance, 7);

  const text = await runSiteline(['usage'], env);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    new RegExp(
      `^Report exports \\(records\\.exports\\), ${period}: 2 of ${REPORT_EXPORTS_PER_MONTH} used, ${REPORT_EXPORTS_PER_MONTH - 2} left; renews \\d{4}-\\d{2}-01\\.$`,
      'm',
    ),
  );
  assert.match(text.stdout, /^REST API credit: 7 credits; 0 charged today \(UTC\)\./m);
  assert.equal(
    (await svc.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'spend'`, [accountId]))[0]!.n,
    0,
    'looking is free',
  );
});

test('siteline usage without a login: exit 4, says to log in, touches nothing', async () => {
  const box = await cliSandbox('usage-nologin');
  try {
    fs.rmSync(box.credsFile);
    const r = await runSiteline(['usage'], box.env);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /siteline login/);
    assert.ok(!fs.existsSync(path.join(box.dir, 'data')), 'no database was opened');
  } finally {
    box.remove();
  }
});

test("staff raise or lower an account's monthly export allowance on the running service, recorded; usage, the account page and getProjectContext show it, and the meter spends up to it", async () => {
  const email = 'allowance@example.com';
  const { identityAssertion, accessToken, jar } = await claimUserIdentity(svc.url, email);
  const own = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'allowance-cli-'));
  try {
    fs.writeFileSync(path.join(own, 'credentials.json'), JSON.stringify({ server: svc.url, email, identity_assertion: identityAssertion }), { mode: 0o600 });
    const accountId = (await svc.ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [email]))[0]!.account_id;
    // The machine's operator of the running server (the credential in its data directory), no login.
    const staffEnv = { SITELINE_DATA_DIR: svc.ctx.config.dataDir, DATABASE_URL: '', SITELINE_CONFIG_DIR: path.join(own, 'staff'), SITELINE_URL: '' };
    const staff = (...args: string[]) => runSiteline([...args, '--operator'], staffEnv);

    const lowered = await staff('staff', 'export-allowance', email, '2', '--reason', 'trial account', '--json');
    assert.equal(lowered.code, 0, lowered.stderr);
    assert.deepEqual(JSON.parse(lowered.stdout), { email, from: REPORT_EXPORTS_PER_MONTH, allowance: 2 });
    assert.equal((await staff('staff', 'export-allowance', email, 'lots', '--reason', 'x')).code, 2, 'not a number: refused');
    assert.equal((await staff('staff', 'export-allowance', email, '3')).code, 2, 'no reason: refused');

    // The meter spends up to the account's own allowance, then refuses with nothing spent.
    const report = await composeReport(sampleReportInput());
    for (const n of [1, 2]) await saveExport(svc.ctx, { accountId, request: exportRequestKey({ n }), title: `Report ${n}`, report });
    await assert.rejects(
      saveExport(svc.ctx, { accountId, request: exportRequestKey({ n: 3 }), title: 'Report 3', report }),
      (e: unknown) => e instanceof SitelineError && /used its 2 report exports/.test(e.message),
    );

    const raised = await staff('staff', 'export-allowance', email, '40', '--reason', 'pilot customer');
    assert.equal(raised.code, 0, raised.stderr);
    assert.equal(raised.stdout, `${email} may export 40 project reports a month (was 2).\n`);
    const usage = JSON.parse((await runSiteline(['usage', '--json'], { ...env, SITELINE_CONFIG_DIR: own })).stdout);
    assert.deepEqual([usage.reportExports.used, usage.reportExports.allowance, usage.reportExports.remaining], [2, 40, 38]);
    assert.match(
      (await getPage(`${svc.url}/account`, jar)).body,
      /id="report-exports">Project report exports this month \(\d{4}-\d{2}\): 2 of 40 used, 38 left/,
    );
    const mcp = await connectClient(svc.url, 'modern', accessToken);
    try {
      const created = (await mcp.callTool({
        name: 'saveToProject',
        arguments: { action: 'create', name: 'Allowance check', lat: 42.38, lng: -71.12, preview: false },
      })) as { isError?: boolean };
      assert.notEqual(created.isError, true, JSON.stringify(created));
      const context = (await mcp.callTool({ name: 'getProjectContext', arguments: { project: 'Allowance check', documentsLimit: 0, evidenceLimit: 0 } })) as {
        structuredContent: { exports: Record<string, unknown> };
      };
      assert.deepEqual(
        { ...context.structuredContent.exports, period: 'p', resetsAt: 'r' },
        { meter: 'records.exports', period: 'p', used: 2, allowance: 40, remaining: 38, resetsAt: 'r' },
      );
    } finally {
      await mcp.close();
    }
    const actions = JSON.parse((await staff('staff', 'actions', '--json')).stdout) as Array<{
      action: string;
      via: string;
      actor: string;
      subject: string;
      details: Record<string, unknown>;
      reason: string;
    }>;
    assert.deepEqual(
      actions.filter((a) => a.action === 'export_allowance').map((a) => [a.via, a.subject, a.details, a.reason]),
      [
        ['operator', email, { from: 2, to: 40 }, 'pilot customer'],
        ['operator', email, { from: REPORT_EXPORTS_PER_MONTH, to: 2 }, 'trial account'],
      ],
    );
  } finally {
    fs.rmSync(own, { recursive: true, force: true });
  }
});
