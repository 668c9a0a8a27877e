// Walks the tool registry: every tool is complete data, hints are coherent, names match files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MCP_TOOLS, findTool } from './registry.ts';
import { wireCatalogue } from './build-server.ts';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

test('every tool states all four hints as booleans and never claims read-only and destructive at once', () => {
  for (const t of MCP_TOOLS) {
    for (const h of HINTS) assert.equal(typeof t.annotations[h], 'boolean', `${t.name}.${h}`);
    assert.ok(!(t.annotations.readOnlyHint && t.annotations.destructiveHint), `${t.name} is read-only and destructive`);
    assert.deepEqual(Object.keys(t.annotations).sort(), [...HINTS].sort(), `${t.name} has only the four hints`);
  }
});

test('every tool is declared as data: name, title, a model-facing description, a zod object input, access and a handler', () => {
  const names = new Set<string>();
  for (const t of MCP_TOOLS) {
    assert.match(t.name, /^[a-z][A-Za-z]{2,63}$/, 'camelCase name');
    assert.ok(!names.has(t.name), `${t.name} is declared once`);
    names.add(t.name);
    assert.ok(t.title.length >= 3 && t.title.length <= 60, `${t.name} title`);
    assert.ok(t.description.length >= 80, `${t.name} description is written for a model`);
    assert.ok(t.input instanceof z.ZodObject, `${t.name} input is a zod object`);
    assert.ok(['public', 'gated'].includes(t.access));
    assert.equal(typeof t.handler, 'function');
    assert.equal(findTool(t.name), t);
  }
});

test('one file per tool under tools/, named after it, and every file is registered', () => {
  const dir = path.join(import.meta.dirname, 'tools');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  assert.deepEqual(files.sort(), MCP_TOOLS.map((t) => `${kebab(t.name)}.ts`).sort());
  for (const t of MCP_TOOLS) {
    const src = fs.readFileSync(path.join(dir, `${kebab(t.name)}.ts`), 'utf8');
    assert.match(src, new RegExp(`name: '${t.name}'`), `${t.name} is declared in its own file`);
  }
});

test('the catalogue holds the issue-4 tools, the project tools (issue 9) and produceProjectReport (issue 12), no stubs for the later ones', () => {
  assert.deepEqual(MCP_TOOLS.map((t) => t.name).sort(), [
    'cityInventory',
    'explainFeasibilityStatus',
    'getFeasibilitySnapshot',
    'getProjectContext',
    'getServiceMcpGuide',
    'previewSiteCoverage',
    'produceProjectReport',
    'runFeasibilityAnalysis',
    'saveToProject',
    'setProjectMapListing',
    'submitServiceFeedback',
    'updateProject',
  ]);
  assert.deepEqual(
    MCP_TOOLS.filter((t) => t.access === 'gated')
      .map((t) => t.name)
      .sort(),
    [
      'getFeasibilitySnapshot',
      'getProjectContext',
      'produceProjectReport',
      'runFeasibilityAnalysis',
      'saveToProject',
      'setProjectMapListing',
      'submitServiceFeedback',
      'updateProject',
    ],
  );
  const hints = (n: string) => findTool(n)!.annotations;
  assert.equal(hints('getProjectContext').readOnlyHint, true);
  for (const n of ['saveToProject', 'updateProject', 'runFeasibilityAnalysis']) assert.equal(hints(n).readOnlyHint, false, `${n} writes`);
  assert.equal(hints('updateProject').destructiveHint, true, 'updateProject overwrites fields');
  assert.equal(hints('saveToProject').destructiveHint, false, 'saveToProject only adds');
  assert.equal(hints('produceProjectReport').readOnlyHint, false, 'produceProjectReport saves an export and spends the meter');
  assert.equal(hints('produceProjectReport').destructiveHint, false);
  assert.equal(hints('produceProjectReport').idempotentHint, true, 'a repeat of the same confirmed call returns the same export');
});

test('the wire catalogue is computed once per registry and carries no $schema key', () => {
  const a = wireCatalogue(MCP_TOOLS);
  assert.equal(wireCatalogue(MCP_TOOLS), a, 'cached');
  for (const w of a) {
    assert.equal(w.inputSchema.type, 'object');
    assert.equal('$schema' in w.inputSchema, false);
  }
});

test('every tool declares its output (a zod object, sent as an object outputSchema) and a one-line purpose for the guide', () => {
  const wire = wireCatalogue(MCP_TOOLS);
  for (const t of MCP_TOOLS) {
    assert.ok(t.output instanceof z.ZodObject, `${t.name} output is a zod object`);
    assert.ok(typeof t.purpose === 'string' && t.purpose.length >= 30 && !t.purpose.includes('\n'), `${t.name} has a one-line purpose`);
    const w = wire.find((x) => x.name === t.name)!;
    assert.equal(w.outputSchema.type, 'object');
    assert.equal('$schema' in w.outputSchema, false);
  }
});

test('the guide and the server instructions are built from the registry: every tool, its access and purpose, and the write rules', async () => {
  const { serverInstructions, WRITE_RULES } = await import('./service-guide.ts');
  const { getServiceMcpGuide } = await import('./tools/get-service-mcp-guide.ts');
  const guideOf = async (tools: typeof MCP_TOOLS) => {
    const out = await getServiceMcpGuide.handler({}, { tools } as never);
    return out.structured as { surface: { tools: { name: string; access: string; purpose: string; writes: boolean }[]; writeRules: string[] } };
  };
  const guide = await guideOf(MCP_TOOLS);
  assert.deepEqual(
    guide.surface.tools.map((t) => t.name),
    MCP_TOOLS.map((t) => t.name),
    'every tool in the registry has a guide entry',
  );
  for (const t of MCP_TOOLS) {
    const entry = guide.surface.tools.find((g) => g.name === t.name)!;
    assert.equal(entry.access, t.access);
    assert.equal(entry.purpose, t.purpose);
    assert.equal(entry.writes, !t.annotations.readOnlyHint);
  }
  for (const rule of [/preview/i, /confirm.*spend|spend.*confirm/i, /never list a private site/i, /feedback only when the user asks/i]) {
    assert.ok(
      guide.surface.writeRules.some((r) => rule.test(r)),
      `write rule ${rule}`,
    );
  }
  const instructions = serverInstructions(MCP_TOOLS);
  for (const t of MCP_TOOLS) assert.ok(instructions.includes(`${t.name}`) && instructions.includes(t.purpose), `instructions name ${t.name} and its purpose`);
  for (const r of WRITE_RULES) assert.ok(instructions.includes(r));

  // A tool added to a registry shows up in its guide and instructions without touching either.
  const added = { ...MCP_TOOLS[0]!, name: 'brandNewTool', purpose: 'A tool added after the guide was written (test).' };
  const grown = [...MCP_TOOLS, added];
  assert.ok((await guideOf(grown)).surface.tools.some((t) => t.name === 'brandNewTool'));
  assert.match(serverInstructions(grown), /brandNewTool: A tool added after the guide/);
});
