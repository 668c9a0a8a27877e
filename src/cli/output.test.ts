// Progress goes to stderr only, appears only for work longer than a second on a terminal, and is
// erased when the work ends (stdout, where the answer goes, never sees it). Time is Node's mock clock
// (setTimeout, setInterval and Date moved by hand), so the second passes without a real wait.
import { test, beforeEach, afterEach, mock } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { palette, progress, type Io } from './output.ts';

function terminalIo(isTTY: boolean): { io: Io; stdout: () => string; stderr: () => string } {
  const mk = () => {
    const s = Object.assign(new PassThrough(), { isTTY });
    let text = '';
    s.on('data', (d) => (text += String(d)));
    return { s, text: () => text };
  };
  const o = mk();
  const e = mk();
  return { io: { stdout: o.s, stderr: e.s, env: {}, colour: palette(false), errColour: palette(false) }, stdout: o.text, stderr: e.text };
}

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.UTC(2026, 0, 1) }));
afterEach(() => mock.timers.reset());

test('work that ends within the second shows no progress at all', async () => {
  const t = terminalIo(true);
  const p = progress(t.io, 'Asking the service...');
  p.stop();
  mock.timers.tick(1200);
  assert.equal(t.stderr(), '');
  assert.equal(t.stdout(), '');
});

test('longer work on a terminal: a spinner with the label on stderr, erased at the end', async () => {
  const t = terminalIo(true);
  const p = progress(t.io, 'Asking the service...');
  mock.timers.tick(999);
  assert.equal(t.stderr(), '', 'nothing before the second');
  mock.timers.tick(301);
  p.stop();
  assert.match(t.stderr(), /Asking the service\.\.\. 1 s/);
  assert.ok(t.stderr().endsWith('\r\u001b[2K'), 'the line is cleared');
  assert.equal(t.stdout(), '', 'stdout untouched');
});

test('not a terminal: no spinner; a plain line only where asked for (the login wait)', async () => {
  const quiet = terminalIo(false);
  progress(quiet.io, 'Opening the local database...').stop();
  assert.equal(quiet.stderr(), '');
  const plain = terminalIo(false);
  const p = progress(plain.io, 'Waiting for you to confirm...', { plainLine: true });
  mock.timers.tick(1200);
  p.stop();
  assert.equal(plain.stderr(), 'Waiting for you to confirm...\n');
});
