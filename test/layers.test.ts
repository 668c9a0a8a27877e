// @engine-independent: reads the import graph of src/, not the database.
// The layer rules (.dependency-cruiser.cjs) hold on src/ with no exceptions list, and each rule fails, by its
// name, on a tree built to break it (so a rule that could never fire is caught too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

const ROOT = path.resolve(import.meta.dirname, '..');
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: unknown[]; options: Record<string, unknown> };

async function violations(cwd: string): Promise<string[]> {
  const before = process.cwd();
  process.chdir(cwd); // the rules' paths are relative to the repository root (^src/...)
  try {
    const r = await cruise(['src'], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
    const out = r.output as ICruiseResult;
    return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`);
  } finally {
    process.chdir(before);
  }
}

test('src/ keeps every layer rule', async () => {
  const found = await violations(ROOT);
  assert.deepEqual(found, [], `layer rules broken (see .dependency-cruiser.cjs and docs/architecture.md):\n${found.join('\n')}`);
});

test('each rule fails, by name, on an import that breaks it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-layers-'));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  try {
    write('src/web/html.ts', 'export const x = 1;\n');
    write('src/http/app.ts', "import { registerWebRoutes } from '../web/routes.ts';\nexport const app = registerWebRoutes;\n");
    write('src/web/routes.ts', 'export function registerWebRoutes() {}\n');
    write('src/core/envelope.ts', "import { p } from '../geocoder/parse.ts';\nexport const e = p;\n");
    write('src/geocoder/parse.ts', 'export const p = 1;\n');
    write('src/config.ts', "import { a } from './places/a.ts';\nexport const c = a;\n");
    write('src/places/a.ts', "import { b } from './b.ts';\nimport { x } from '../web/html.ts';\nexport const a = x;\nexport const a2 = b;\n");
    write('src/places/b.ts', "import { a } from './a.ts';\nexport const b = () => a;\n");
    write('src/mcp/tools.ts', "import { registerWebRoutes } from '../web/routes.ts';\nexport const t = registerWebRoutes;\n");
    // the house's order: an import up a row, and an import of a room listed later in its own row
    const imports = (file: string, target: string) => write(file, `import { x } from '${target}';\nexport const y = x;\n`);
    for (const f of ['src/context.ts', 'src/main.ts', 'src/importer/i.ts', 'src/auth/a.ts', 'src/staff/s.ts']) write(f, 'export const x = 1;\n');
    imports('src/rules/r.ts', '../snapshot/s.ts'); // sources -> answers
    imports('src/snapshot/s.ts', '../projects/p.ts'); // answers -> work
    imports('src/projects/p.ts', '../reports/r.ts'); // work -> back
    imports('src/reports/r.ts', '../service.ts'); // back -> root
    imports('src/cli/c.ts', '../main.ts'); // surfaces -> root
    imports('src/clock.ts', './context.ts'); // clock < context
    imports('src/places/c.ts', '../geocoder/parse.ts'); // places < geocoder
    imports('src/snapshot/s2.ts', '../importer/i.ts'); // snapshot < importer
    imports('src/billing/b.ts', '../auth/a.ts'); // billing < auth
    imports('src/reports/r2.ts', '../staff/s.ts'); // reports < staff
    imports('src/service.ts', './main.ts'); // service < service-process < main
    const rules = new Set((await violations(dir)).map((v) => v.split(':')[0]));
    assert.deepEqual([...rules].sort(), [
      'answers-rooms-import-nothing-above',
      'answers-rooms-in-order',
      'back-rooms-import-nothing-above',
      'back-rooms-in-order',
      'core-imports-nothing-above-it',
      'domain-knows-no-surface',
      'foundation-knows-no-room',
      'foundation-rooms-in-order',
      'http-plumbing-imports-no-surface',
      'no-circular',
      'root-rooms-in-order',
      'sources-rooms-import-nothing-above',
      'sources-rooms-in-order',
      'surfaces-are-mounted-in-one-place',
      'surfaces-import-no-other-surface',
      'surfaces-rooms-import-nothing-above',
      'work-rooms-import-nothing-above',
      'work-rooms-in-order',
    ]);
    // every rule of the configuration is among those that fired
    assert.deepEqual(
      [...new Set((config.forbidden as { name: string }[]).map((r) => r.name))].filter((n) => !rules.has(n)),
      [],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
