// `siteline usage` through the real bin, logged in as a person is (the stored identity from the real
// claim flow): the project report export meter (records.exports) and the REST API credit, as the
// service counts them, in text and with --json; not logged in -> exit 4, nothing else touched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { claimUserIdentity } from './support/auth-flow.ts';
import { cliSandbox, runSiteline } from './support/cli.ts';
import { sampleReportInput } from './support/report-fixture.ts';
import { composeReport } from '../src/reports/compose-report.ts';
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
  fs.writeFileSync(path.join(configDir, 'credentials.json'), JSON.stringify({ server: svc.url, email, identity_assertion: identityAssertion }), { mode: 0o600 });
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
  assert.match(text.stdout, new RegExp(`^Report exports \\(records\\.exports\\), ${period}: 2 of ${REPORT_EXPORTS_PER_MONTH} used, ${REPORT_EXPORTS_PER_MONTH - 2} left; renews \\d{4}-\\d{2}-01\\.$`, 'm'));
  assert.match(text.stdout, /^REST API credit: 7 credits; 0 charged today \(UTC\)\./m);
  assert.equal((await svc.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'spend'`, [accountId]))[0]!.n, 0, 'looking is free');
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
