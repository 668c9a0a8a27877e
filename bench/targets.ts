// The bench's targets, in one table: every figure `npm run bench` holds to a target is named here,
// with its bound, and printed with MET or MISSED beside it (`[<= 0.15 ms: MET]`). The run ends with a
// summary of the table (met, missed, not measured in this run); `npm run bench -- --strict` exits
// non-zero when one is missed. A bench file asks `verdict(id, value)` where it prints the figure; a
// bench that runs in its own process hands its measurements back as a `{"targets": ...}` line.

export interface Target {
  /** What is measured, as the summary names it. */
  what: string;
  op: '<=' | '>=';
  limit: number;
  /** The unit of `limit` and of the value measured against it ('' for a plain ratio). */
  unit: string;
  /** Words printed after the bound (`idle`: the target holds on an idle machine). */
  note?: string;
}

export const TARGETS = {
  'cambridge.snapshot.p50': { what: 'Cambridge snapshot p50 (in process)', op: '<=', limit: 0.15, unit: 'ms' },
  'cambridge.snapshot.p99': { what: 'Cambridge snapshot p99 (in process)', op: '<=', limit: 1, unit: 'ms' },
  'cambridge.json.ratio': { what: 'Cambridge: JSON.stringify of an answer as built / of a parsed copy', op: '<=', limit: 1, unit: '' },
  'synthetic.import': { what: 'synthetic city: import (PGlite; 1,000,000 parcels unless BENCH_PARCELS says otherwise)', op: '<=', limit: 60, unit: 's' },
  'synthetic.snapshot.p50': { what: 'synthetic city snapshot p50', op: '<=', limit: 0.15, unit: 'ms' },
  'synthetic.snapshot.p99': { what: 'synthetic city snapshot p99', op: '<=', limit: 1, unit: 'ms' },
  'synthetic.json.ratio': { what: 'synthetic city: JSON.stringify as built / of a parsed copy', op: '<=', limit: 1, unit: '' },
  'synthetic.peakRss': { what: 'synthetic city: peak RSS', op: '<=', limit: 1024, unit: 'MB' },
  'pglite.import.rawCopy': { what: 'PGlite: import / raw COPY of the same rows', op: '<=', limit: 3, unit: 'x' },
  'pglite.gist.build': { what: "PGlite: the parcels' box index, buffering build / default build", op: '<=', limit: 1, unit: '' },
  'pglite.gist.lookup': { what: 'PGlite: lots at a point through the buffered index / the default one, p50', op: '<=', limit: 1, unit: '' },
  'postgres.import.rawCopy': { what: 'PostgreSQL: import / raw COPY of the same rows', op: '<=', limit: 3, unit: 'x' },
  'postgres.gist.build': { what: "PostgreSQL: the parcels' box index, buffering build / default build", op: '<=', limit: 1, unit: '' },
  'postgres.gist.lookup': { what: 'PostgreSQL: lots at a point through the buffered index / the default one, p50', op: '<=', limit: 1, unit: '' },
  'postgres.import.peakRss': { what: "PostgreSQL import: siteline's peak RSS", op: '<=', limit: 1024, unit: 'MB' },
  'first.answer': { what: 'first Cambridge answer after npm start on a clean data directory', op: '<=', limit: 20, unit: 's', note: 'idle' },
  'first.auditLatency': { what: 'answer latency during the start-up audit / after it (median)', op: '<=', limit: 1.1, unit: '' },
  'projects.enqueue.p50': { what: 'analysis enqueue -> current p50', op: '<=', limit: 250, unit: 'ms' },
  'projects.drain': { what: 'analysis queue drain', op: '>=', limit: 50, unit: 'runs/s' },
  'projects.context.p50': { what: 'getProjectContext p50', op: '<=', limit: 5, unit: 'ms' },
  'mcp.cached': { what: 'MCP getFeasibilitySnapshot (cached) / SDK constant tool, requests/s', op: '>=', limit: 90, unit: '%' },
  'mcp.cacheOff': { what: 'MCP getFeasibilitySnapshot, cache off / SDK constant answer of the same size', op: '>=', limit: 80, unit: '%' },
  'mcp.preview': { what: 'MCP previewSiteCoverage / SDK constant tool', op: '>=', limit: 80, unit: '%' },
  'payload.example.structured': { what: 'the example answer: structured JSON', op: '<=', limit: 5, unit: 'KB', note: 'goal' },
  'payload.example.wire': { what: 'the example answer: MCP result on the wire', op: '<=', limit: 12, unit: 'KB' },
  'payload.structured.median': { what: 'answered Cambridge addresses: structured JSON, median', op: '<=', limit: 5, unit: 'KB', note: 'typical' },
  'payload.wire.p90': { what: 'answered Cambridge addresses: MCP result on the wire, p90', op: '<=', limit: 12, unit: 'KB' },
  'rest.paid': { what: 'paid REST (PGlite) / raw node:http echo, requests/s', op: '>=', limit: 15, unit: '%' },
  'partitions.sample': { what: 'partitioned PostgreSQL (country): fixed sample identical to the unpartitioned tables', op: '>=', limit: 100, unit: '%' },
  'partitions.sample.afterSwap': {
    what: 'partitioned PostgreSQL (country): fixed sample identical after two places swapped in',
    op: '>=',
    limit: 100,
    unit: '%',
  },
  'partitions.swap.errors': { what: 'partitioned PostgreSQL (country): errors while places are swapped in under readers', op: '<=', limit: 0, unit: '' },
  'partitions.swap.wrong': {
    what: 'partitioned PostgreSQL (country): answers different from before while places are swapped in',
    op: '<=',
    limit: 0,
    unit: '',
  },
  'rest.paid.postgres': { what: 'paid REST (PostgreSQL) / raw node:http echo, requests/s', op: '>=', limit: 15, unit: '%' },
  'owners.identical': {
    what: 'two instances owning half the places each: fixed sample answers identical to one instance owning all (share)',
    op: '>=',
    limit: 1,
    unit: '',
  },
  'owners.held': { what: "two instances owning half the places each: the larger owner's index bytes / one instance's", op: '<=', limit: 0.75, unit: '' },
  'replica.share': { what: "streaming replica: share of the lookup path's operations it answers (DATABASE_READ_URL)", op: '>=', limit: 0.99, unit: '' },
  'replica.sql.p50': { what: 'streaming replica: snapshot through SQL p50, replica / primary (same machine)', op: '<=', limit: 1.25, unit: 'x' },
} as const satisfies Record<string, Target>;

export type TargetId = keyof typeof TARGETS;

export interface Measured {
  id: TargetId;
  value: number;
  met: boolean;
}

const measured = new Map<TargetId, Measured>();

/** Whether `value` (in the target's unit) meets the target. NaN (nothing measured) never does. */
export function meets(t: Target, value: number): boolean {
  return Number.isFinite(value) && (t.op === '<=' ? value <= t.limit : value >= t.limit);
}

const withUnit = (n: number | string, unit: string) => (unit === '' || unit === 'x' ? `${n}${unit}` : `${n} ${unit}`);

function bound(t: Target): string {
  return `${t.op} ${withUnit(t.limit, t.unit)}${t.note ? ` ${t.note}` : ''}`;
}

/** Records a measurement against its target and returns the bracket printed beside it: `[<= 1 ms: MET]`. */
export function verdict(id: TargetId, value: number): string {
  const t: Target = TARGETS[id];
  const m = { id, value, met: meets(t, value) };
  // Measured twice (a round repeated): the worse one stands.
  const before = measured.get(id);
  if (!before || (before.met && !m.met)) measured.set(id, m);
  return `[${bound(t)}: ${m.met ? 'MET' : 'MISSED'}]`;
}

/** The measurements so far, for a bench in its own process to hand back (one `{"targets": [...]}` line). */
export function measurements(): Measured[] {
  return [...measured.values()];
}

/** Takes the measurements another process handed back. */
export function adopt(list: Array<{ id: string; value: number }>): void {
  for (const m of list) if (m.id in TARGETS) verdict(m.id as TargetId, m.value);
}

/** The closing table: every target, MET / MISSED / not measured (with the value measured), and the count. */
export function summary(): { lines: string[]; missed: number } {
  const lines = ['Targets (bench/targets.ts):'];
  let met = 0;
  let missed = 0;
  let notMeasured = 0;
  for (const [id, t] of Object.entries(TARGETS) as Array<[TargetId, Target]>) {
    const m = measured.get(id);
    const state = !m ? 'not measured' : m.met ? 'MET' : 'MISSED';
    if (!m) notMeasured++;
    else if (m.met) met++;
    else missed++;
    const value = m ? withUnit(Number.isFinite(m.value) ? +m.value.toPrecision(4) : 'none', t.unit) : '';
    lines.push(`  ${state.padEnd(12)} ${t.what} ${bound(t)}${m ? `: ${value}` : ''}`);
  }
  lines.push(`  ${met} met, ${missed} missed, ${notMeasured} not measured in this run (of ${Object.keys(TARGETS).length})`);
  return { lines, missed };
}
