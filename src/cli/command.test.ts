// The flag parser and the colour rules every command shares (the binary-level checks are in
// test/cli-conventions.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs, UsageError, wantsHelp, type Command } from './command.ts';
import { colourWanted } from './output.ts';

const cmd: Command = {
  name: 'demo',
  summary: 'demo',
  usage: 'demo <a> [flags]',
  flags: [
    { name: 'json', description: '' },
    { name: 'url', short: 'u', value: 'URL', description: '' },
  ],
  args: { min: 1, max: 2, name: 'the thing' },
};

test('flags: --x, --x=v, --x v, short forms, and -- ends the flags', () => {
  assert.deepEqual(parseArgs(cmd, ['a', '--json', '--url', 'http://h']), { args: ['a'], flags: { json: true, url: 'http://h' } });
  assert.deepEqual(parseArgs(cmd, ['--url=http://h', 'a']), { args: ['a'], flags: { url: 'http://h' } });
  assert.deepEqual(parseArgs(cmd, ['-u', 'http://h', 'a']), { args: ['a'], flags: { url: 'http://h' } });
  assert.deepEqual(parseArgs(cmd, ['--', '--json', '-5']), { args: ['--json', '-5'], flags: {} });
  assert.deepEqual(parseArgs(cmd, ['-5']), { args: ['-5'], flags: {} }, 'a negative number is an argument');
});

test('usage errors: unknown flag, missing value, value on a switch, argument counts', () => {
  const fails = (argv: string[], re: RegExp) =>
    assert.throws(
      () => parseArgs(cmd, argv),
      (e: unknown) => e instanceof UsageError && re.test(e.message),
      argv.join(' '),
    );
  fails(['a', '--bogus'], /unknown flag --bogus/);
  fails(['a', '-x'], /unknown flag -x/);
  const pointCmd = {
    ...cmd,
    flags: [...(cmd.flags ?? []), { name: 'lat', value: 'N', description: 'Latitude' }, { name: 'lng', value: 'N', description: 'Longitude' }],
  };
  assert.throws(() => parseArgs(pointCmd, ['a', '--latitude', '42']), /unknown flag --latitude: a point is given as --lat and --lng \(use --lat\)/);
  assert.throws(() => parseArgs(pointCmd, ['a', '--lon', '-71']), /use --lng/);
  fails(['a', '--url'], /--url needs a value/);
  fails(['a', '--url', '--json'], /--url needs a value/);
  fails(['a', '--json=yes'], /takes no value/);
  fails([], /missing the thing/);
  fails(['a', 'b', 'c'], /too many arguments/);
});

test('help is asked for anywhere before --, and only there', () => {
  assert.equal(wantsHelp(['logout', '--help']), true);
  assert.equal(wantsHelp(['x', '-h', 'y']), true);
  assert.equal(wantsHelp(['--', '-h']), false);
  assert.equal(wantsHelp(['check', '57 Inman St']), false);
});

test('colour: the flag, then NO_COLOR, then FORCE_COLOR, then TERM=dumb, then the terminal', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  assert.equal(colourWanted(tty, {}, false), true);
  assert.equal(colourWanted(pipe, {}, false), false);
  assert.equal(colourWanted(tty, {}, true), false);
  assert.equal(colourWanted(tty, { NO_COLOR: '1' }, false), false);
  assert.equal(colourWanted(tty, { NO_COLOR: '' }, false), true, 'an empty NO_COLOR is unset');
  assert.equal(colourWanted(pipe, { FORCE_COLOR: '1' }, false), true);
  assert.equal(colourWanted(pipe, { FORCE_COLOR: '' }, false), false, 'an empty FORCE_COLOR is unset');
  assert.equal(colourWanted(tty, { FORCE_COLOR: '0' }, false), true, 'FORCE_COLOR=0 does not force; the terminal decides');
  assert.equal(colourWanted(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, false), false);
  assert.equal(colourWanted(tty, { TERM: 'dumb' }, false), false);
});
