// @engine-independent: reads docs/deploy.md and the configuration schema, touches no database.
// docs/deploy.md lists every environment variable the service's configuration reads: a variable added
// to src/config.ts without a line in its table fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './support/harness.ts';
import { CONFIG_VARIABLES } from '../src/config.ts';

test('docs/deploy.md has a table row for every variable the configuration reads', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
  const rows = new Set([...doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!));
  const read = CONFIG_VARIABLES;
  assert.ok(read.includes('DATABASE_URL') && read.includes('SITELINE_METRICS_TOKEN') && read.includes('SITELINE_ANALYSIS_WORKERS'), 'the schemas were read');
  assert.deepEqual(
    read.filter((v) => !rows.has(v)),
    [],
    'variables read by the configuration but missing from docs/deploy.md',
  );
  assert.deepEqual(
    [...rows].filter((v) => !read.includes(v)),
    [],
    'rows in docs/deploy.md for variables nothing reads',
  );
});

test('docs/siteline.env.example names every variable the configuration reads, and no other', () => {
  const text = fs.readFileSync(path.join(ROOT, 'docs/siteline.env.example'), 'utf8');
  const named = new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
  const read = CONFIG_VARIABLES;
  assert.deepEqual(
    read.filter((v) => !named.has(v)),
    [],
    'variables missing from the env template',
  );
  assert.deepEqual(
    [...named].filter((v) => !read.includes(v)),
    [],
    'variables in the env template that nothing reads',
  );
});

test("the README's configuration table names every variable the configuration reads", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
  const named = new Set([...table.matchAll(/^\|([^|]*)\|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((x) => x[1]!)));
  const read = CONFIG_VARIABLES;
  assert.deepEqual(
    read.filter((v) => !named.has(v)),
    [],
    "variables missing from the README's table",
  );
});
