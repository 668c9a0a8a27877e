// Saved report exports over the real server: the signed link downloads the stored PDF; an expired or
// altered link is refused; a repeated request does not spend twice; the monthly meter refuses the
// export past the allowance with nothing spent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { signUpOrIn } from './support/auth-flow.ts';
import { sampleReportInput } from './support/report-fixture.ts';
import { ManualClock } from '../src/clock.ts';
import { SitelineError } from '../src/core/errors.ts';
import { composeReport, type ComposedReport } from '../src/reports/compose-report.ts';
import { EXPORT_URL_TTL_S, signExportUrl } from '../src/reports/signed-url.ts';
import { REPORT_EXPORTS_PER_MONTH, SAME_ARGUMENTS_WINDOW_MS, exportRequestKey, exportUsage, saveExport } from '../src/reports/export-store.ts';

const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
let svc: TestServer;
let report: ComposedReport;
let accountId: string;
before(async () => {
  svc = await startTestServer({ clock });
  await signUpOrIn(svc.url, 'exporter@example.com');
  accountId = (await svc.ctx.db.query<{ account_id: string }>("SELECT account_id FROM accounts WHERE email = 'exporter@example.com'"))[0]!.account_id;
  report = await composeReport(sampleReportInput());
});
after(async () => {
  await svc?.close();
});

const onServer = (url: string) => url.replace(svc.ctx.config.baseUrl, svc.url);
const exportsCount = async () =>
  (await svc.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM report_exports WHERE account_id = $1', [accountId]))[0]!.n;

test('the signed link downloads the stored PDF; altered links are refused; an expired link answers 410', async () => {
  const saved = await saveExport(svc.ctx, {
    accountId,
    request: exportRequestKey({ projectId: 'p1', audience: 'investor' }),
    title: 'Inman Square infill',
    report,
  });
  const link = await signExportUrl(svc.ctx, saved.exportId);
  assert.equal(new Date(link.expiresAt).getTime() - clock.now().getTime(), EXPORT_URL_TTL_S * 1000);
  const ok = await fetch(onServer(link.url));
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('content-type'), 'application/pdf');
  assert.match(ok.headers.get('content-disposition') ?? '', /filename="Inman-Square-infill\.pdf"/);
  assert.deepEqual(Buffer.from(await ok.arrayBuffer()), report.pdf);

  const u = new URL(onServer(link.url));
  const sig = u.searchParams.get('sig')!;
  const expires = u.searchParams.get('expires')!;
  const variants = [
    `${u.origin}${u.pathname}?expires=${expires}&sig=${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`, // signature altered
    `${u.origin}${u.pathname}?expires=${Number(expires) + 3600}&sig=${sig}`, // expiry pushed out
    `${u.origin}${u.pathname.replace(saved.exportId, '00000000-0000-4000-8000-000000000000')}?expires=${expires}&sig=${sig}`, // another export
    `${u.origin}${u.pathname}?expires=${expires}`, // no signature
  ];
  for (const v of variants) {
    const r = await fetch(v);
    assert.equal(r.status, 403, v);
    assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'bad_signature');
  }
  clock.advance(EXPORT_URL_TTL_S * 1000);
  const expired = await fetch(onServer(link.url));
  assert.equal(expired.status, 410);
  assert.match(((await expired.json()) as { error: { message: string } }).error.message, /expired/);
  // A fresh link to the same export works again.
  assert.equal((await fetch(onServer((await signExportUrl(svc.ctx, saved.exportId)).url))).status, 200);
});

test('the same request again (same arguments inside the window, or the same explicit key) spends nothing and returns the same export', async () => {
  const before = await exportUsage(svc.ctx, accountId);
  const args = { projectId: 'p2', audience: 'board', detail: 'brief' };
  const first = await saveExport(svc.ctx, { accountId, request: exportRequestKey(args), title: 'Board brief', report });
  // Same arguments, other key order: the same request.
  const again = await saveExport(svc.ctx, {
    accountId,
    request: exportRequestKey({ detail: 'brief', audience: 'board', projectId: 'p2' }),
    title: 'Board brief',
    report,
  });
  assert.equal(again.exportId, first.exportId);
  assert.equal(again.duplicate, true);
  assert.equal(again.usage.used, before.used + 1);
  // Past the window the same arguments are a new export (and are paid for).
  clock.advance(SAME_ARGUMENTS_WINDOW_MS + 1000);
  const later = await saveExport(svc.ctx, { accountId, request: exportRequestKey(args), title: 'Board brief', report });
  assert.notEqual(later.exportId, first.exportId);
  assert.equal(later.usage.used, before.used + 2);
  const keyed = await saveExport(svc.ctx, { accountId, request: exportRequestKey(args, 'retry-key-1'), title: 'Board brief', report });
  const keyedAgain = await saveExport(svc.ctx, { accountId, request: exportRequestKey({ other: true }, 'retry-key-1'), title: 'Board brief', report });
  assert.equal(keyedAgain.exportId, keyed.exportId);
  assert.equal(keyedAgain.usage.used, before.used + 3);
});

test('the monthly meter: the export past the allowance is refused with nothing spent or saved; next month it renews', async () => {
  let usage = await exportUsage(svc.ctx, accountId);
  for (let i = usage.used; i < REPORT_EXPORTS_PER_MONTH; i++) {
    usage = (await saveExport(svc.ctx, { accountId, request: exportRequestKey({ n: i }), title: `Report ${i}`, report })).usage;
  }
  assert.equal(usage.used, REPORT_EXPORTS_PER_MONTH);
  assert.equal(usage.remaining, 0);
  const rowsBefore = await exportsCount();
  await assert.rejects(
    saveExport(svc.ctx, { accountId, request: exportRequestKey({ n: 'one too many' }), title: 'Too many', report }),
    (err: unknown) =>
      err instanceof SitelineError &&
      err.code === 'rate_limited' &&
      /used its 25 report exports for 2026-11; nothing was spent/.test(err.message) &&
      err.details?.['resetsAt'] === '2026-12-01T00:00:00.000Z',
  );
  assert.equal(await exportsCount(), rowsBefore);
  assert.equal((await exportUsage(svc.ctx, accountId)).used, REPORT_EXPORTS_PER_MONTH);
  clock.set(Date.UTC(2026, 11, 1, 0, 0, 1));
  const renewed = await saveExport(svc.ctx, { accountId, request: exportRequestKey({ n: 'december' }), title: 'December', report });
  assert.deepEqual([renewed.usage.period, renewed.usage.used], ['2026-12', 1]);
});
