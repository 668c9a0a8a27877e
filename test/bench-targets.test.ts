// @engine-independent: the bench's target table and its verdicts; no database.
// `npm run bench` holds every figure with a target to one table (bench/targets.ts) and prints MET or
// MISSED beside it; `--strict` fails the run on a miss (the bench itself is too slow for the suite:
// this checks the table, the verdicts and that every bench file prints its targets through it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './support/harness.ts';
import { TARGETS, adopt, meets, summary, verdict, measurements } from '../bench/targets.ts';

test('a figure is MET within its bound and MISSED outside it; the summary counts every target of the table', () => {
  assert.equal(verdict('cambridge.snapshot.p50', 0.12), '[<= 0.15 ms: MET]');
  assert.equal(verdict('cambridge.snapshot.p99', 1.4), '[<= 1 ms: MISSED]');
  assert.equal(verdict('projects.drain', 49), '[>= 50 runs/s: MISSED]');
  assert.equal(verdict('pglite.import.rawCopy', 2.5), '[<= 3x: MET]');
  assert.equal(verdict('first.answer', 19), '[<= 20 s idle: MET]');
  assert.equal(meets(TARGETS['mcp.cached'], NaN), false, 'nothing measured never meets a target');
  // A target measured twice keeps the worse verdict; another process's measurements are taken in.
  verdict('cambridge.snapshot.p50', 0.2);
  adopt([
    { id: 'rest.paid', value: 20 },
    { id: 'no.such.target', value: 1 },
  ]);
  const byId = new Map(measurements().map((m) => [m.id, m]));
  assert.equal(byId.get('cambridge.snapshot.p50')!.met, false);
  assert.equal(byId.get('rest.paid')!.met, true);
  const { lines, missed } = summary();
  assert.equal(missed, 3);
  assert.match(
    lines.at(-1)!,
    new RegExp(`3 met, 3 missed, ${Object.keys(TARGETS).length - 6} not measured in this run \\(of ${Object.keys(TARGETS).length}\\)`),
  );
  assert.ok(
    lines.some((l) => /^ {2}MISSED {7}analysis queue drain >= 50 runs\/s: 49 runs\/s$/.test(l)),
    lines.join('\n'),
  );
  assert.ok(lines.some((l) => l.startsWith('  not measured')));
});

test('every target of the table is printed by a bench through verdict(), and no bench writes a bound of its own', () => {
  const dir = path.join(ROOT, 'bench');
  const sources = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && f !== 'targets.ts')
    .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')] as const);
  const all = sources.map(([, s]) => s).join('\n');
  for (const id of Object.keys(TARGETS))
    assert.ok(all.includes(`verdict('${id}'`) || new RegExp(`['"]${id.replace(/\./g, '\\.')}['"]`).test(all), `${id} is measured by some bench`);
  for (const [f, s] of sources) {
    const code = s.replace(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(code, /\[(<=|>=) [0-9]/, `${f} prints a bound that is not in bench/targets.ts`);
  }
  const run = fs.readFileSync(path.join(dir, 'run.ts'), 'utf8');
  assert.match(run, /process\.argv\.includes\('--strict'\)/);
  assert.match(run, /if \(strict && missed > 0\)[\s\S]{0,200}process\.exitCode = 1/);
});
