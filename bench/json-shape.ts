// What an answer's object shape costs JSON.stringify, which every surface runs on every answer (the MCP
// text block and the SDK's message, REST, the pages' JSON). Three forms of the same answers, timed in
// interleaved rounds: as built; a JSON.parse'd copy (the baseline: the shape V8 makes for parsed JSON);
// and the shape built before 2026-12-05 (the envelope's ~21 values stored by computed keys, which V8
// turns into a dictionary past ~17 properties, and each derived value's `inputs` a shared frozen array).
// Either of those two sends JSON.stringify off its fast path for the whole answer.
import type { Snapshot } from '../src/core/snapshot-types.ts';
import { percentile } from './measure.ts';

const ROUNDS = 5;

export interface JsonShape {
  answers: number;
  /** µs per answer: each form's mean over the answers, in its median round. */
  builtUs: number;
  parsedCopyUs: number;
  olderShapeUs: number;
}

function olderShape(s: Snapshot): Snapshot {
  if (!s.envelope) return s;
  const frozen = new Map<string, readonly string[]>();
  const envelope: Record<string, unknown> = {};
  for (const name of Object.keys(s.envelope)) {
    const v = s.envelope[name]!;
    const key = v.inputs?.join('\u0000');
    if (key !== undefined && !frozen.has(key)) frozen.set(key, Object.freeze([...v.inputs!]));
    envelope[name] = key === undefined ? { ...v } : { ...v, inputs: frozen.get(key) };
  }
  return { ...s, envelope } as Snapshot;
}

function timeAll(xs: readonly unknown[]): number {
  const t0 = performance.now();
  for (const x of xs) JSON.stringify(x);
  return ((performance.now() - t0) / xs.length) * 1000;
}

/** The three forms of `answers` (answered snapshots), ROUNDS interleaved rounds; each figure is its median round. */
export function jsonShape(answers: readonly Snapshot[]): JsonShape {
  const built = answers.filter((s) => s.answered);
  const copies = built.map((s) => JSON.parse(JSON.stringify(s)) as Snapshot);
  const older = built.map(olderShape);
  const rounds: [number, number, number][] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push([timeAll(built), timeAll(copies), timeAll(older)]);
  const median = (i: number) =>
    percentile(
      rounds.map((x) => x[i]!).sort((a, b) => a - b),
      50,
    );
  return { answers: built.length, builtUs: median(0), parsedCopyUs: median(1), olderShapeUs: median(2) };
}
