// @engine-independent: help never opens a database.
// `-h`/`--help` on every command and subcommand of the table prints its help and never acts, checked
// on the real binary (its own file: one process per path and flag, so the walk has its own time budget
// next to the other conventions in cli-conventions.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliSandbox, commandPaths, runSiteline, type CliSandbox } from './support/cli.ts';
import { COMMANDS } from '../src/cli/commands.ts';

let sandbox: CliSandbox;
let env: Record<string, string>;
before(async () => {
  sandbox = await cliSandbox('cli-help');
  ({ env } = sandbox);
});
after(() => sandbox.remove());

const ALL = commandPaths(COMMANDS);
const untouched = (): void => sandbox.untouched();

test('-h and --help on every command and subcommand print its help on stdout, exit 0, and do nothing', async () => {
  for (const { path: words, cmd } of ALL) {
    // Extra arguments must not turn help into action (`logout --help`, `check -h`, `data import cambridge-ma -h`).
    const runs = ['--help', '-h'].map((flag) => (cmd.args?.max ? [...words, 'some argument', flag] : [...words, flag]));
    const results = await Promise.all(runs.map((argv) => runSiteline(argv, env)));
    runs.forEach((argv, i) => {
      const r = results[i]!;
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, '', `${argv.join(' ')} writes nothing on stderr`);
      assert.ok(r.stdout.startsWith(cmd.summary), `${argv.join(' ')} prints its own help`);
      assert.match(r.stdout, new RegExp(`Usage:\\n  siteline ${words.join(' ')}`));
    });
    untouched();
  }
  // `help <command>` is the same help.
  const viaHelp = await runSiteline(['help', 'logout'], env);
  assert.equal(viaHelp.code, 0);
  assert.equal(viaHelp.stdout, (await runSiteline(['logout', '--help'], env)).stdout);
  untouched();
});
