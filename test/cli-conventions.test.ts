// @engine-independent: flags, exit codes and colour of the binary; no database behind them.
// The conventions every `siteline` command keeps (gh / Stripe CLI / clig.dev), checked on the real
// binary for every command in the table: -h/--help prints help and never acts, --version, unknown
// flags and commands are usage errors (exit 2, stderr only), exit codes documented in --help.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './support/harness.ts';
import { cliSandbox, commandPaths, runSiteline, type CliSandbox } from './support/cli.ts';
import { COMMANDS } from '../src/cli/commands.ts';

let sandbox: CliSandbox;
let env: Record<string, string>;
let credsFile: string;
before(async () => {
  sandbox = await cliSandbox('cli-conv');
  ({ env, credsFile } = sandbox);
});
after(() => sandbox.remove());

const ALL = commandPaths(COMMANDS);
const untouched = (): void => sandbox.untouched();

test('the table has the commands the help lists', () => {
  assert.deepEqual(
    ALL.map((p) => p.path.join(' ')),
    [
      'check',
      'projects',
      'projects list',
      'projects create',
      'projects show',
      'projects attach',
      'projects analyze',
      'projects update',
      'projects undo',
      'keys',
      'keys create',
      'keys list',
      'keys revoke',
      'usage',
      'data',
      'data init',
      'data check',
      'data import',
      'data update',
      'data status',
      'data audit',
      'rules',
      'rules verify',
      'rules suggest',
      'rules cite',
      'login',
      'whoami',
      'logout',
      'worker',
      'credits',
      'credits grant',
      'credits balance',
      'feedback',
      'feedback list',
      'feedback review',
      'staff',
      'staff add',
      'staff remove',
      'staff export-allowance',
      'staff list',
      'staff revoke-key',
      'staff actions',
    ],
  );
});

test('logout without --help does act (so the test above would see it): it deletes the stored login', async () => {
  const copy = fs.readFileSync(credsFile);
  const r = await runSiteline(['logout'], env);
  assert.equal(r.code, 1, 'the service cannot be reached to revoke');
  assert.match(r.stderr, /local credentials are deleted/);
  assert.ok(!fs.existsSync(credsFile));
  fs.writeFileSync(credsFile, copy, { mode: 0o600 });
});

test('siteline --help lists every command and the exit codes; --version prints package.json version', async () => {
  const help = await runSiteline(['--help'], env);
  assert.equal(help.code, 0);
  for (const c of COMMANDS) assert.match(help.stdout, new RegExp(`^  ${c.name}\\s+${c.summary.replace(/[()]/g, '\\$&')}`, 'm'));
  for (const code of [0, 1, 2, 3, 4, 5]) assert.match(help.stdout, new RegExp(`^  ${code}  \\S`, 'm'), `exit code ${code} documented`);
  assert.equal((await runSiteline([], env)).stdout, help.stdout, 'no arguments: the same help');

  const v = await runSiteline(['--version'], env);
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(v.code, 0);
  assert.equal(v.stdout, `siteline ${pkg.version}\n`);
  untouched();
});

test('unknown flags, unknown commands and missing arguments: exit 2, the reason on stderr, nothing on stdout', async () => {
  const cases: string[][] = [
    ['check', '11 Acorn St', '--bogus'],
    ['check', '-x', '11 Acorn St'],
    ['check'],
    ['check', '--local', '--url', 'http://x', '11 Acorn St'],
    ['check', '--url', 'not a url', '11 Acorn St'],
    ['data', 'import'],
    ['data', 'status', 'extra'],
    ['data', '--bogus'],
    ['data', 'frobnicate'],
    ['whoami', '--bogus'],
    ['logout', 'now'],
    ['credits', 'grant', 'ann@example.com'],
    ['projects', 'show'],
    ['keys', 'revoke'],
    ['feedback', 'list', '--limit'],
    ['worker', 'now'],
    ['no-such-command'],
    ['--bogus'],
  ];
  // Two at a time: independent processes, and the suite shares two cores.
  const results: Awaited<ReturnType<typeof runSiteline>>[] = [];
  for (let i = 0; i < cases.length; i += 2) results.push(...(await Promise.all(cases.slice(i, i + 2).map((argv) => runSiteline(argv, env)))));
  for (const [i, argv] of cases.entries()) {
    const r = results[i]!;
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', `${argv.join(' ')}: nothing on stdout`);
    assert.match(r.stderr, /unknown|missing|needs a value|exclude|unexpected|subcommand|not a URL/, argv.join(' '));
    assert.match(r.stderr, /--help/, `${argv.join(' ')} says where the usage is`);
    untouched();
  }
  assert.match((await runSiteline(['check', '11 Acorn St', '--bogus'], env)).stderr, /unknown flag --bogus/);
});

test('--json with a failure: nothing on stdout, the reason on stderr', async () => {
  // The stored login points at a closed port: the remote check fails before any answer.
  const r = await runSiteline(['check', '11 Acorn St, Cambridge, MA', '--json'], env);
  assert.equal(r.code, 5, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /cannot reach the siteline service at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/);
  untouched();
});

test('colour on stderr: none through a pipe, FORCE_COLOR turns it on, NO_COLOR and --no-color win', async () => {
  const esc = /\u001b\[/;
  const argv = ['check', '11 Acorn St', '--bogus'];
  assert.doesNotMatch((await runSiteline(argv, env)).stderr, esc);
  assert.match((await runSiteline(argv, { ...env, FORCE_COLOR: '1' })).stderr, esc);
  assert.doesNotMatch((await runSiteline(argv, { ...env, FORCE_COLOR: '1', NO_COLOR: '1' })).stderr, esc);
  assert.doesNotMatch((await runSiteline([...argv.slice(0, 2), '--no-color', '--bogus'], { ...env, FORCE_COLOR: '1' })).stderr, esc);
});
