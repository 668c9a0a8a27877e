// `-h`/`--help` on every command and subcommand of the table prints its help and never acts, checked
// on the real binary (its own file: one process per path and flag, so the walk has its own time budget
// next to the other conventions in cli-conventions.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './support/harness.ts';
import { runSiteline } from './support/cli.ts';
import { COMMANDS } from '../src/cli/commands.ts';
import type { Command } from '../src/cli/command.ts';

let dir: string;
let env: Record<string, string>;
let credsFile: string;
const FAKE_CREDS = { server: '', email: 'keep@example.com', identity_assertion: 'stored-assertion' };

/** A port nothing listens on: any attempt to reach the service fails loudly (exit 5). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

before(async () => {
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  dir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'cli-help-'));
  const url = `http://127.0.0.1:${await closedPort()}`;
  env = { SITELINE_CONFIG_DIR: path.join(dir, 'config'), SITELINE_URL: url, SITELINE_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', SITELINE_AUTO_IMPORT: '0' };
  credsFile = path.join(dir, 'config', 'credentials.json');
  fs.mkdirSync(path.join(dir, 'config'), { recursive: true });
  fs.writeFileSync(credsFile, JSON.stringify({ ...FAKE_CREDS, server: url }), { mode: 0o600 });
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every command path in the table: ['check'], ['data'], ['data', 'import'], ... */
function paths(list: Command[], prefix: string[] = []): { path: string[]; cmd: Command }[] {
  return list.flatMap((c) => [{ path: [...prefix, c.name], cmd: c }, ...paths(c.subcommands ?? [], [...prefix, c.name])]);
}
const ALL = paths(COMMANDS);

/** What a command could have touched: the stored login and the local database directory. */
function untouched(): void {
  assert.ok(fs.existsSync(credsFile), 'the stored login is still there');
  assert.equal(JSON.parse(fs.readFileSync(credsFile, 'utf8')).identity_assertion, 'stored-assertion');
  assert.ok(!fs.existsSync(path.join(dir, 'data')), 'no database was opened');
}

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

