// Percentiles and timing helpers for the benchmark (not for tests: speed is never asserted in a test).
export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i]!;
}

export async function timeEach<T>(items: T[], fn: (x: T) => Promise<unknown>): Promise<{ p50: number; p99: number; mean: number; n: number }> {
  const ms: number[] = [];
  for (const x of items) {
    const t = process.hrtime.bigint();
    await fn(x);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), mean: ms.reduce((a, b) => a + b, 0) / ms.length, n: ms.length };
}

export const fmtMs = (x: number) => `${x.toFixed(x < 10 ? 3 : 1)} ms`;

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}
