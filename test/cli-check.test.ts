// `siteline check --local` as a person runs it: the real bin, a real database holding Cambridge, exit codes.
// (The default, remote `check` is in cli-remote-check.test.ts.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createPlacesEnv, ROOT } from './support/harness.ts';

const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/cambridge-addresses.json'), 'utf8')).addresses as {
  address: string;
  parcelExternalId: string;
  zone: string;
}[];

let env: { env: Record<string, string>; close(): Promise<void> };
before(async () => {
  env = await createPlacesEnv(['cambridge-ma', 'chicago-il']);
});
after(async () => env.close());

function siteline(...args: string[]) {
  return sitelineWith({}, ...args);
}

function sitelineWith(extraEnv: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env.env, ...extraEnv },
    timeout: 120_000,
  });
}

test('check --json answers a Cambridge address with exit 0', () => {
  const g = golden[3]!;
  const r = siteline('check', '--local', g.address, '--json');
  assert.equal(r.status, 0, r.stderr);
  const snap = JSON.parse(r.stdout);
  assert.equal(snap.answered, true);
  assert.equal(snap.lot.parcelExternalId, g.parcelExternalId);
  assert.equal(snap.zones.primary, g.zone);
});

/** The readable answer through a pipe, kept for the colour test (each --local run opens the database: slow). */
let pipedReadable: { address: string; stdout: string } | undefined;

test('check prints a readable snapshot for a person', () => {
  const g = golden[3]!;
  const r = siteline('check', '--local', g.address);
  pipedReadable = { address: g.address, stdout: r.stdout };
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`Lot ${g.parcelExternalId.replace('.', '\\.')}`));
  assert.match(r.stdout, /Envelope/);
  assert.match(r.stdout, /not_extracted|unverified_default|site_specific_schedule/);
});

test("the readable output states each value's condition and source, and never turns unknown into a number", () => {
  const r = siteline('check', '--local', '11 Acorn St, Cambridge, MA');
  assert.equal(r.status, 0, r.stderr);
  const snap = JSON.parse(siteline('check', '--local', '11 Acorn St, Cambridge, MA', '--json').stdout);
  const height = snap.envelope.maxHeightFt;
  // The condition is written on the value, or once in notes when several values share it.
  const condition = height.condition ?? snap.notes?.[height.conditionNote];
  assert.ok(condition, 'the example carries a condition');
  assert.ok(r.stdout.includes(`condition: ${condition}`), 'condition printed');
  for (const [name, v] of Object.entries(snap.envelope) as [string, { value: unknown; status: string; statedNoLimit?: string; inputs?: string[] }][]) {
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.trimStart().startsWith(name + ' '));
    const line = lines[at]!;
    // A source's no-limit (unverified) names its source and never sits beside "unknown".
    if (v.statedNoLimit) assert.match(line, new RegExp(`No limit, per ${v.statedNoLimit}\\s+indicative, unverified`), name);
    // A value worked out from others says it was not calculated, and why (the line after its analysis line).
    else if (v.value === null && v.status !== 'no_limit_in_bylaw' && v.inputs?.length) {
      assert.match(line, /\bNot calculated\b/, name);
      assert.match(lines.slice(at + 1, at + 3).join('\n'), /why: Not calculated: .+\./, name);
    } else if (v.value === null && v.status !== 'no_limit_in_bylaw') assert.match(line, /\bUnknown\b/, name);
    if (!v.statedNoLimit) assert.doesNotMatch(line, /no limit/i, name);
  }
  // A value without a number keeps the note that says why (FAR: the limit was removed, per S1), as on the web page.
  const far = snap.envelope.maxFar;
  assert.equal(far.value, null);
  const farNote = snap.notes?.[far.notes?.[0]] ?? far.note;
  assert.ok(farNote, 'the example explains its unknown FAR');
  const lines = r.stdout.split('\n');
  const at = lines.findIndex((l) => l.trimStart().startsWith('maxFar '));
  const block = lines.slice(
    at + 1,
    lines.findIndex((l, i) => i > at && /^ {2}\S/.test(l)),
  );
  assert.ok(block.includes(`      note: ${farNote}`), `maxFar's note printed under it:\n${block.join('\n')}`);
});

test('not covered is exit 3, with the reason', () => {
  const r = siteline('check', '--local', '233 S Wacker Dr, Chicago, IL', '--json');
  assert.equal(r.status, 3, r.stderr);
  const snap = JSON.parse(r.stdout);
  assert.equal(snap.answered, false);
  assert.equal(snap.coverage.status, 'planned_not_live');
  const human = siteline('check', '--local', '233 S Wacker Dr, Chicago, IL');
  assert.equal(human.status, 3);
  assert.match(human.stdout, /Not covered \(planned_not_live\)/);
});

test('an answer that is not sure of its lot is exit 6: the answer on stdout, the doubt and its reason on stderr', () => {
  const r = siteline('check', '--local', '57 Inman St, Cambridge, MA', '--json');
  assert.equal(r.status, 6, r.stderr);
  const snap = JSON.parse(r.stdout);
  assert.equal(snap.answered, true);
  assert.equal(snap.address.confidence, 0.5);
  assert.match(
    r.stderr,
    /We are not sure this is the lot you meant\. The address is not tied to a lot in any table; the lot was located by its number along the street \(match confidence 0\.5, below 0\.8\)/,
  );
  // A sure one stays exit 0 with nothing on stderr.
  const sure = siteline('check', '--local', '11 Acorn St, Cambridge, MA', '--json');
  assert.equal(sure.status, 0);
  assert.doesNotMatch(sure.stderr, /not sure/);
});

test("--lot answers for the lot named: matchType lot_id, the address's own lot in a warning, exit 0; the weak answer tells how", () => {
  const address = '57 Inman St, Cambridge, MA';
  const weak = siteline('check', '--local', address, '--json');
  assert.equal(weak.status, 6, weak.stderr);
  assert.match(weak.stderr, /Name the lot you meant with --lot ID\./);
  const matched = JSON.parse(weak.stdout).lot.parcelExternalId as string;
  const meant = golden.find((g) => g.parcelExternalId !== matched)!.parcelExternalId;
  const r = siteline('check', '--local', address, '--lot', meant, '--json');
  assert.equal(r.status, 0, r.stderr);
  const snap = JSON.parse(r.stdout);
  assert.equal(snap.lot.parcelExternalId, meant);
  assert.equal(snap.address.matchType, 'lot_id');
  assert.equal(snap.address.confidence, 1);
  const picked = (snap.address.warnings as string[]).find((w) => w.startsWith(`You picked lot ${meant}.`));
  assert.ok(picked?.includes(`The address alone matched lot ${matched}`), `a warning names the lot the address alone matched: ${picked}`);
  const missing = siteline('check', '--local', address, '--lot', 'no-such-lot');
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /has no lot "no-such-lot" in its parcel layer/);
});

test('bad input is exit 2 with a clear message; usage errors too', () => {
  const r = siteline('check', '--local', '\u0007\u0008');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /Cannot check that address/);
  assert.equal(siteline('check').status, 2);
  assert.equal(siteline('check', '12 Main St', '--bogus').status, 2);
  assert.equal(siteline('no-such-command').status, 2);
});

test('colour on stdout only on request when piped (FORCE_COLOR), and it changes nothing but the escapes', () => {
  // NO_COLOR, --no-color and the pipe rule are checked cheaply in cli-conventions.test.ts and src/cli/command.test.ts.
  const esc = /\u001b\[/;
  assert.ok(pipedReadable, 'the readable test ran first');
  const piped = pipedReadable;
  assert.doesNotMatch(piped.stdout, esc, 'stdout is a pipe: no colour');
  const forced = sitelineWith({ FORCE_COLOR: '1' }, 'check', '--local', piped.address);
  assert.match(forced.stdout, esc, 'FORCE_COLOR: colour');
  assert.equal(forced.stdout.replace(/\u001b\[\d+m/g, ''), piped.stdout);
});
