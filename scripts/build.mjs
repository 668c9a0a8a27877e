// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json: .ts imports rewritten to .js)
// and copies what the code reads beside itself (SQL migrations, page assets). `--if-stale` (run by
// `npm start` as prestart) builds only when the sources changed since the last build: a digest of
// src/ and the build settings is kept in dist/.build-digest. Plain JavaScript, so it needs no loader.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const DIGEST_FILE = path.join(DIST, '.build-digest');
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/build.mjs'];

function sources(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (!e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

function digest() {
  const h = crypto.createHash('sha256');
  for (const f of [...sources(SRC), ...INPUTS.map((f) => path.join(ROOT, f))]) {
    if (!fs.existsSync(f)) continue;
    h.update(path.relative(ROOT, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

const want = digest();
if (process.argv.includes('--if-stale') && fs.existsSync(DIGEST_FILE) && fs.readFileSync(DIGEST_FILE, 'utf8').trim() === want) process.exit(0);

const started = Date.now();
process.stderr.write('siteline: compiling src/ to dist/ ...\n');
fs.rmSync(DIST, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
if (tsc.status !== 0) {
  process.stderr.write('siteline: the build failed (tsc above); nothing was started.\n');
  process.exit(tsc.status ?? 1);
}
// Files the modules read relative to themselves (import.meta.dirname): copied beside the compiled code.
for (const f of sources(SRC).filter((f) => !f.endsWith('.ts'))) {
  const to = path.join(DIST, path.relative(SRC, f));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(f, to);
}
fs.writeFileSync(DIGEST_FILE, want + '\n');
process.stderr.write(`siteline: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
