// CI (.ci/run): a production install as a deployment makes one. dist/ is built where the dev
// dependencies are; the tracked files and dist/ are copied to a temporary directory; there
// `npm ci --omit=dev` installs the production dependencies alone (no TypeScript, no tsx) with the
// pinned Node they carry; `npm start` must serve /healthz on the compiled build and that Node, and the
// CLI must run its compiled code; then the service is stopped (SIGTERM, exit 0) and the copy removed.
// About half a minute with a warm npm cache. Plain JavaScript: it runs before anything is compiled.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();
const step = (msg) => console.log(`[production install ${((Date.now() - started) / 1000).toFixed(1)} s] ${msg}`);
const fail = (msg) => {
  console.error(`production install: FAILED: ${msg}`);
  process.exitCode = 1;
};

const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
const platformPackage = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const pinned = lock.packages[`node_modules/${platformPackage}`];

const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('dist/ could not be built');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-production-'));
let child;
try {
  for (const f of execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean)) {
    if (!fs.existsSync(path.join(ROOT, f))) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  fs.cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  step(`copied the tracked files and dist/ to ${dir}; npm ci --omit=dev`);
  // The machine's environment (its certificates, npm cache), less what would point the copy at another service or database.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SITELINE_|DATABASE_URL$|PORT$|HOST$|LOG_LEVEL$|npm_)/.test(k)));
  // Nor the clone's own node_modules/.bin: the copy's Node must be the one its install pinned.
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((p) => !path.resolve(p).startsWith(ROOT + path.sep))
    .join(path.delimiter);
  // --prefer-offline: the packages come from the npm cache the clone's own install filled (the lockfile's integrity is checked all the same).
  const ci = spawnSync(npm, ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, env, stdio: 'inherit' });
  if (ci.status !== 0) throw new Error(`npm ci --omit=dev exited ${ci.status}`);
  for (const dev of ['typescript', 'tsx']) if (fs.existsSync(path.join(dir, 'node_modules', dev))) fail(`${dev} (a dev dependency) is installed`);

  const want = pinned ? `v${pinned.version}` : null;
  if (want) {
    const bin = path.join(dir, 'node_modules/.bin', process.platform === 'win32' ? 'node.cmd' : 'node');
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' }).stdout?.trim();
    if (v !== want) fail(`node_modules/.bin/node is ${v ?? 'missing'}, not the pinned ${want} (${platformPackage})`);
    else step(`the pinned Node is installed: ${platformPackage} ${v} (integrity ${pinned.integrity.slice(0, 20)}... from the lockfile)`);
  } else step(`no ${platformPackage} package in the lockfile: this platform runs the Node it has`);

  // The compiled CLI runs without tsx, on the pinned Node (npm exec puts node_modules/.bin first).
  const cli = spawnSync(npm, ['exec', '--', 'siteline', '--version'], { cwd: dir, env, encoding: 'utf8' });
  if (cli.status !== 0 || !/^siteline /.test(cli.stdout)) fail(`siteline --version exited ${cli.status}: ${cli.stdout}${cli.stderr}`);
  else step(`the CLI runs its compiled code: ${cli.stdout.trim()}`);

  step('npm start (no place data: it starts, warns and serves)');
  child = spawn(npm, ['start', '--silent'], {
    cwd: dir,
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: '0',
      SITELINE_SOURCE_DIR: path.join(dir, 'no-place-data'),
      SITELINE_ANALYSIS_WORKERS: '0',
      SITELINE_PRESTOP_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no "listening" line in 120 s: ${err.slice(-1500)}`)), 120_000);
    child.stdout.on('data', (d) => {
      out += d;
      for (const l of out.split('\n')) {
        if (!l.startsWith('{')) continue;
        try {
          const j = JSON.parse(l);
          if (j.msg === 'listening') {
            clearTimeout(timer);
            resolve(j);
          }
        } catch {
          /* a partial line */
        }
      }
    });
    void exited.then((code) => reject(new Error(`npm start exited (${code}): ${err.slice(-1500)}`)));
  });
  if (listening.build !== 'dist') fail(`the service runs ${listening.build}, not dist`);
  if (want && listening.node !== want) fail(`the service runs on Node ${listening.node}, not the pinned ${want}`);
  const health = await fetch(`${listening.url}/healthz`);
  if (health.status !== 200) fail(`/healthz answered ${health.status}`);
  else step(`/healthz 200 from ${listening.url} (build ${listening.build}, Node ${listening.node})`);
  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running 30 s after SIGTERM'), 30_000).unref())]);
  if (code !== 0) fail(`npm start ended with ${code} after SIGTERM`);
  else step('stopped on SIGTERM, exit 0');
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
} finally {
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL'); // whatever is left of its process group
    } catch {
      /* already gone */
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
if (!process.exitCode) step('passed');
