// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json: .ts imports rewritten to .js)
// and copies what the code reads beside itself (SQL migrations, page assets). `--if-stale` (run by
// `npm start` as prestart, and by bin/siteline.mjs before the CLI) builds only when the sources changed
// since the last build: a digest of src/ and the build settings is kept in dist/.build-digest. Plain
// JavaScript, so it needs no loader.
//
// Several processes may ask at once (CLI tests in parallel, a server starting): one builds, under a
// lock directory, into a fresh directory that then replaces dist/; the others wait for it and find
// dist/ fresh. A production install (`npm ci --omit=dev`) has no TypeScript: there dist/ must have been
// built before (`npm run build` where the dev dependencies are), and a stale one is refused by name.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const DIGEST_FILE = path.join(DIST, '.build-digest');
const LOCK = path.join(ROOT, '.dist-build.lock');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/build.mjs'];
/** A lock older than this belongs to a build that died (a build takes seconds). */
const LOCK_STALE_MS = 10 * 60_000;

function sources(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (!e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The digest of what dist/ is built from: src/ (tests aside) and the build settings. */
export function sourceDigest() {
  const h = crypto.createHash('sha256');
  for (const f of [...sources(SRC), ...INPUTS.map((f) => path.join(ROOT, f))]) {
    if (!fs.existsSync(f)) continue;
    h.update(path.relative(ROOT, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

function builtDigest() {
  try {
    return fs.readFileSync(DIGEST_FILE, 'utf8').trim();
  } catch {
    return null;
  }
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Takes the build lock, waiting while another live process holds it; false when dist/ became fresh meanwhile. */
function takeLock(want) {
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    let age = 0;
    try {
      holder = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8'));
      age = Date.now() - fs.statSync(LOCK).mtimeMs;
    } catch {
      /* the holder is writing its pid, or just let go */
    }
    if ((Number.isInteger(holder) && !pidAlive(holder)) || age > LOCK_STALE_MS) fs.rmSync(LOCK, { recursive: true, force: true });
    else sleep(200);
    if (builtDigest() === want) return false;
  }
}

/**
 * Builds dist/ from src/ (always, or only when stale). Returns whether it built; throws with the
 * reason when it cannot (tsc failed, or a stale dist/ and no TypeScript installed).
 */
export function build({ ifStale = false, log = (msg) => process.stderr.write(msg) } = {}) {
  const want = sourceDigest();
  if (ifStale && builtDigest() === want) return false;
  if (!fs.existsSync(TSC)) {
    throw new Error(
      `dist/ is ${fs.existsSync(DIST) ? 'out of date with src/' : 'missing'} and TypeScript is not installed (a production install, npm ci --omit=dev): build where the dev dependencies are (npm ci && npm run build), then install for production beside that dist/.`,
    );
  }
  if (!takeLock(want)) return false;
  try {
    if (ifStale && builtDigest() === want) return false; // built by the process that held the lock
    const started = Date.now();
    log('siteline: compiling src/ to dist/ ...\n');
    const out = path.join(ROOT, `.dist-build-${process.pid}`);
    fs.rmSync(out, { recursive: true, force: true });
    const tsc = spawnSync(process.execPath, [TSC, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (tsc.status !== 0) {
      fs.rmSync(out, { recursive: true, force: true });
      throw new Error(`the build failed (tsc above, exit ${tsc.status})`);
    }
    // Files the modules read relative to themselves (import.meta.dirname): copied beside the compiled code.
    for (const f of sources(SRC).filter((f) => !f.endsWith('.ts'))) {
      const to = path.join(out, path.relative(SRC, f));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(f, to);
    }
    fs.writeFileSync(path.join(out, '.build-digest'), want + '\n');
    // The new build replaces the old in two renames, so no reader ever sees a half-written dist/.
    const old = path.join(ROOT, `.dist-old-${process.pid}`);
    if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
    fs.renameSync(out, DIST);
    fs.rmSync(old, { recursive: true, force: true });
    log(`siteline: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return true;
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * The Node the lockfile pins for this platform (the optional dependency node-<os>-<arch>, its binary
 * in the tarball the lockfile hashes) when it is not installed: npm skips an optional package it
 * could not fetch, with a warning only, and `npm start` would then run on whatever Node is on the PATH.
 * Null when it is installed, or when no build is published for this platform (macOS on arm64).
 */
export function missingPinnedNode() {
  const name = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const pinned = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')).packages?.[`node_modules/${name}`];
  if (!pinned || fs.existsSync(path.join(ROOT, 'node_modules', name, 'package.json'))) return null;
  return `the pinned Node ${pinned.version} (${name}, an optional dependency) is not installed (npm skips an optional package it could not fetch): run npm ci again and read its warnings`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const missing = missingPinnedNode();
    if (missing) throw new Error(missing);
    build({ ifStale: process.argv.includes('--if-stale') });
  } catch (err) {
    process.stderr.write(`siteline: ${err.message}; nothing was started.\n`);
    process.exit(1);
  }
}
