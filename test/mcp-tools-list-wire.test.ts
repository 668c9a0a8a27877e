// Reads tools/list on the wire (raw HTTP, both legs) and checks every tool's schema and hints against
// the spec's tables: wire-shape bugs (double-nested annotations, lost enums) only show here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { legacyRequest, modernRequest, postRpc } from './mcp-support.ts';
import { ALL_STATUSES } from '../src/core/statuses.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer();
});
after(async () => {
  await svc?.close();
});

interface Prop {
  type?: string;
  enum?: string[];
  description?: string;
  minimum?: number;
  maximum?: number;
}
interface WireTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: string; properties: Record<string, Prop>; required?: string[] };
  annotations: Record<string, unknown>;
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };

/** The spec's parameter tables (names, types, enums, required) plus our choices where it says "not shown". */
const EXPECTED: Record<string, { props: Record<string, { type: string; enum?: readonly string[] }>; required: string[]; hints: Record<string, boolean> }> = {
  getServiceMcpGuide: {
    props: {
      role: { type: 'string', enum: ['developer', 'gc', 'reviewer'] },
      market: { type: 'string', enum: ['US', 'CA'] },
      scale: { type: 'string', enum: ['single_parcel', 'portfolio'] },
    },
    required: [],
    hints: { ...READ_ONLY, openWorldHint: false },
  },
  explainFeasibilityStatus: {
    props: { status: { type: 'string', enum: ALL_STATUSES } },
    required: ['status'],
    hints: { ...READ_ONLY, openWorldHint: false },
  },
  cityInventory: {
    props: {
      city: { type: 'string' },
      region: { type: 'string' },
      geoDivisionId: { type: 'string' },
      lat: { type: 'number' },
      lng: { type: 'number' },
      district: { type: 'string' },
    },
    required: [],
    hints: { ...READ_ONLY, openWorldHint: false },
  },
  previewSiteCoverage: {
    props: { address: { type: 'string' } },
    required: ['address'],
    hints: { ...READ_ONLY, openWorldHint: false },
  },
  getFeasibilitySnapshot: {
    props: {
      address: { type: 'string' },
      source: { type: 'string', enum: ['zoning_lookup', 'lot_dimensions', 'setback_lookup', 'height_limit_lookup', 'full'] },
      // Optional, beyond the spec's two: the place's sources in full inline (docs/snapshot.md, "Sources").
      includeSources: { type: 'boolean' },
      // Optional: the district (and building type, and the conditions of its table) a caller states in a place without a zoning map (docs/mcp.md).
      district: { type: 'string' },
      buildingType: { type: 'string' },
      conditions: { type: 'array' },
      // Optional: the lot the user picks when the address matched weakly (issue 49, item 6; docs/web.md).
      lotId: { type: 'string' },
    },
    required: ['address', 'source'],
    hints: { ...READ_ONLY, openWorldHint: true },
  },
  submitServiceFeedback: {
    props: { submissionId: { type: 'string' }, affectedToolName: { type: 'string' } },
    required: [],
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  saveToProject: {
    props: {
      action: { type: 'string', enum: ['create', 'attach_reference', 'attach_parcels'] },
      name: { type: 'string' },
      address: { type: 'string' },
      lat: { type: 'number' },
      lng: { type: 'number' },
      projectId: { type: 'string' },
      project: { type: 'string' },
      sectionUuid: { type: 'string' },
      parcelExternalIds: { type: 'array' },
      role: { type: 'string', enum: ['build', 'context'] },
      radiusM: { type: 'integer' },
      idempotencyKey: { type: 'string' },
      externalRef: { type: 'string' },
      district: { type: 'string' },
      buildingType: { type: 'string' },
      conditions: { type: 'array' },
      preview: { type: 'boolean' },
    },
    required: ['action', 'preview'],
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  updateProject: {
    props: {
      projectId: { type: 'string' },
      project: { type: 'string' },
      name: { type: 'string' },
      lifecycleStatus: { type: 'string' },
      // The spec's "string or null": advertised as a string, since LangChain's MCP adapter and single-type
      // dialects drop a string-or-null union's type (issue 47); "" clears it, and null still does (projects-mcp.test.ts).
      externalRef: { type: 'string' },
      // The owner's typology (issue 49), advertised as a string like externalRef: "" clears it.
      typology: { type: 'string' },
      preview: { type: 'boolean' },
      undoOperationId: { type: 'string' },
    },
    required: ['preview'],
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  runFeasibilityAnalysis: {
    props: { projectId: { type: 'string' }, project: { type: 'string' } },
    required: [],
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  getProjectContext: {
    props: { projectId: { type: 'string' }, project: { type: 'string' }, documentsLimit: { type: 'integer' }, evidenceLimit: { type: 'integer' } },
    required: ['documentsLimit', 'evidenceLimit'],
    hints: { ...READ_ONLY, openWorldHint: false },
  },
  produceProjectReport: {
    props: {
      projectId: { type: 'string' },
      project: { type: 'string' },
      audience: { type: 'string', enum: ['investor', 'owner', 'board', 'resident'] },
      detail: { type: 'string', enum: ['brief', 'detailed'] },
      request: { type: 'string' },
      preview: { type: 'boolean' },
      confirm: { type: 'boolean' },
      planName: { type: 'string' },
    },
    required: ['audience', 'detail', 'preview', 'confirm'],
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  setProjectMapListing: {
    props: { projectId: { type: 'string' }, project: { type: 'string' }, listed: { type: 'boolean' }, preview: { type: 'boolean' } },
    required: ['listed', 'preview'],
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
};

/** The JSON Schema type of a property as one string ('string|null' for a nullable string). */
function typeOf(p: Prop & { anyOf?: { type?: string }[]; type?: string | string[] }): string | undefined {
  if (Array.isArray(p.type)) return p.type.join('|');
  if (p.type) return p.type;
  return p.anyOf?.map((a) => a.type).join('|');
}

for (const [leg, req] of [
  ['modern', () => modernRequest('tools/list')],
  ['legacy', () => legacyRequest('tools/list')],
] as const) {
  test(`${leg}: every tool on the wire has the spec's input schema and all four flat annotation hints`, async () => {
    const r = await postRpc(svc.url, req());
    assert.equal(r.status, 200, r.raw);
    const tools = r.message!.result.tools as WireTool[];
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(EXPECTED).sort());
    for (const tool of tools) {
      const want = EXPECTED[tool.name]!;
      assert.ok(tool.title, `${tool.name} has a title`);
      assert.ok(tool.description.length >= 80, `${tool.name} has a description written for a model`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), Object.keys(want.props).sort(), `${tool.name} parameters`);
      for (const [name, p] of Object.entries(want.props)) {
        const got = tool.inputSchema.properties[name]!;
        assert.equal(typeOf(got), p.type, `${tool.name}.${name} type`);
        if (p.enum) assert.deepEqual(got.enum, [...p.enum], `${tool.name}.${name} enum`);
        else assert.equal(got.enum, undefined);
        assert.ok(got.description && got.description.length > 10, `${tool.name}.${name} is described`);
      }
      assert.deepEqual([...(tool.inputSchema.required ?? [])].sort(), [...want.required].sort(), `${tool.name} required`);
      // Flat annotations: the four hints sit directly on annotations, not nested one level down.
      assert.equal(typeof tool.annotations, 'object');
      assert.equal('annotations' in tool.annotations, false, `${tool.name} annotations are not double-nested`);
      for (const [hint, value] of Object.entries(want.hints)) assert.equal(tool.annotations[hint], value, `${tool.name}.${hint}`);
      assert.ok(!(tool.annotations.readOnlyHint === true && tool.annotations.destructiveHint === true));
      assert.equal('$schema' in tool.inputSchema, false);
      // Every tool declares what its structured content holds (issue 25), as an object schema.
      const out = (tool as unknown as { outputSchema?: { type: string; properties?: Record<string, unknown> } }).outputSchema;
      assert.ok(out, `${tool.name} declares an outputSchema`);
      assert.equal(out.type, 'object', `${tool.name} outputSchema is an object`);
      assert.ok(Object.keys(out.properties ?? {}).length > 0, `${tool.name} outputSchema names its fields`);
      assert.equal('$schema' in out, false);
    }
    // One spelling of a point: no tool takes latitude/longitude/lon.
    for (const tool of tools) for (const k of ['latitude', 'longitude', 'lon']) assert.equal(k in tool.inputSchema.properties, false, `${tool.name}.${k}`);
    // The bounds a schema states are the ones the service applies (an agent trusts the schema).
    const { MAX_NAME_CHARS } = await import('../src/projects/project-fields.ts');
    const { MAX_RADIUS_M } = await import('../src/projects/save-to-project.ts');
    const { MAX_DOCUMENTS_LIMIT, MAX_EVIDENCE_LIMIT } = await import('../src/reports/project-context.ts');
    const prop = (tool: string, name: string) => tools.find((t) => t.name === tool)!.inputSchema.properties[name] as Record<string, unknown>;
    assert.equal(prop('saveToProject', 'name')['maxLength'], MAX_NAME_CHARS);
    assert.equal(prop('updateProject', 'name')['maxLength'], MAX_NAME_CHARS);
    assert.deepEqual([prop('saveToProject', 'radiusM')['minimum'], prop('saveToProject', 'radiusM')['maximum']], [1, MAX_RADIUS_M]);
    assert.deepEqual(
      [prop('getProjectContext', 'documentsLimit')['minimum'], prop('getProjectContext', 'documentsLimit')['maximum']],
      [0, MAX_DOCUMENTS_LIMIT],
    );
    assert.deepEqual([prop('getProjectContext', 'evidenceLimit')['minimum'], prop('getProjectContext', 'evidenceLimit')['maximum']], [0, MAX_EVIDENCE_LIMIT]);
  });
}
