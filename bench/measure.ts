// Percentiles and timing helpers for the benchmark (not for tests: speed is never asserted in a test).
export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i]!;
}

/**
 * Wall time of each call, and the process's CPU time in it (getrusage: every thread, so GC helpers
 * count): a call whose wall time far exceeds its CPU time waited for a core, which on a loaded machine
 * sets the tail. Both as percentiles.
 */
export async function timeEach<T>(items: T[], fn: (x: T) => Promise<unknown>): Promise<{ p50: number; p99: number; mean: number; n: number; cpuP50: number; cpuP99: number }> {
  const ms: number[] = [];
  const cpu: number[] = [];
  for (const x of items) {
    const c = process.cpuUsage();
    const t = process.hrtime.bigint();
    await fn(x);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  ms.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), mean: ms.reduce((a, b) => a + b, 0) / ms.length, n: ms.length, cpuP50: percentile(cpu, 50), cpuP99: percentile(cpu, 99) };
}

export const fmtMs = (x: number) => `${x.toFixed(x < 10 ? 3 : 1)} ms`;

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}
