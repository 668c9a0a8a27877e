// Report composing: a detailed investor report (12 lots, districts, an overlay, the whole envelope,
// the map) against a baseline of the smallest report (one lot, brief, no areas) composed in the same run.
import { composeReport } from '../src/reports/compose-report.ts';
import { sampleReportInput } from '../test/support/report-fixture.ts';
import { fmtMs, timeEach } from './measure.ts';

const RUNS = Number(process.env.BENCH_REPORT_RUNS ?? 20);

export async function runReportBench(): Promise<string[]> {
  const detailed = sampleReportInput({ audience: 'investor', detail: 'detailed' });
  const full = sampleReportInput();
  const minimal = sampleReportInput({
    detail: 'brief',
    request: null,
    lots: [full.lots.find((l) => l.role === 'build')!],
    areas: [],
    envelope: full.envelope.slice(0, 1),
  });
  await composeReport(detailed); // load fonts and code once before timing
  const runs = Array.from({ length: RUNS }, (_, i) => i);
  const base = await timeEach(runs, () => composeReport(minimal));
  const t = await timeEach(runs, () => composeReport(detailed));
  const one = await composeReport(detailed);
  const small = await composeReport(minimal);
  return [
    `Report composing (pdfkit, embedded DejaVu Sans subsets; ${RUNS} runs each)`,
    `  detailed investor report: p50 ${fmtMs(t.p50)}  p99 ${fmtMs(t.p99)}  ${one.pageCount} pages, ${(one.pdf.length / 1024).toFixed(1)} KiB`,
    `  baseline one-lot brief:   p50 ${fmtMs(base.p50)}  ${small.pageCount} page(s), ${(small.pdf.length / 1024).toFixed(1)} KiB: detailed = ${(t.p50 / base.p50).toFixed(2)}x the baseline`,
    '',
  ];
}
