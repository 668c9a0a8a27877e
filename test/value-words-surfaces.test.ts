// One wording of a value on every surface a person reads: the web site page, the PDF report, the CLI's
// `siteline check` text and the MCP summary text. First the real journey for a Cambridge lot whose FAR
// and minimum lot area a city notice says have no limit (unverified): the real server's page, the real
// binary, the MCP tool over HTTP. Then every value status (with and without a number, and a source's
// no-limit) drawn by each surface's own renderer, the PDF read back with pdf.js.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { loginThroughCli, runSiteline } from './support/cli.ts';
import { getPage, signUpOrIn } from './support/auth-flow.ts';
import { VALUE_STATUSES, type ValueStatus } from '../src/core/statuses.ts';
import { valueWords, type WordedValue } from '../src/core/value-words.ts';
import { envelopeSectionHtml } from '../src/web/site-page.ts';
import { renderSnapshot } from '../src/cli/check-command.ts';
import { snapshotSummary } from '../src/snapshot/summary.ts';
import { composeReport } from '../src/reports/compose-report.ts';
import type { Snapshot, SnapshotValue } from '../src/core/snapshot-types.ts';
import { sampleReportInput } from './support/report-fixture.ts';

const ADDRESS = '11 Acorn St, Cambridge, MA';
let svc: TestServer;
let configDir: string;
let env: Record<string, string>;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  configDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'value-words-'));
  env = { SITELINE_CONFIG_DIR: configDir, SITELINE_URL: svc.url, SITELINE_DATA_DIR: path.join(configDir, 'no-database-here'), DATABASE_URL: '' };
});

after(async () => {
  await svc?.close().catch(() => undefined);
  fs.rmSync(configDir, { recursive: true, force: true });
});

/** Tags dropped, entities decoded, whitespace collapsed: the page as a reader sees its text. */
function pageText(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

/** The text of one envelope block of the page: `<div class="std" id="env-KEY">...</div>`. */
function pageBlock(html: string, key: string): string {
  const m = new RegExp(`<div class="std" id="env-${key}">([\\s\\S]*?)</div>`).exec(html);
  assert.ok(m, `the page has a block for ${key}`);
  return pageText(m[1]!);
}

async function pdfText(pdf: Buffer): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, isEvalSupported: false }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    text += ' ' + content.items.map((it) => ('str' in it ? it.str : '')).join(' ');
  }
  await doc.destroy();
  return text.replace(/\s+/g, ' ');
}

/** The analysis sentence as the MCP summary runs it on after a value: lower-case, no full stop. */
const mcpAnalysis = (a: string) => a.charAt(0).toLowerCase() + a.slice(1, -1);
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

test('Cambridge FAR and minimum lot area read "No limit, per S1 — indicative, unverified" on the page, in the CLI and in the MCP text, never "unknown"', async () => {
  const login = await loginThroughCli(svc.url, 'value.words@example.com', env);
  assert.equal(login.code, 0, login.stderr);
  const json = await runSiteline(['check', ADDRESS, '--json'], env);
  assert.equal(json.code, 0, json.stderr);
  const snap = JSON.parse(json.stdout) as Snapshot;
  for (const key of ['maxFar', 'minLotAreaSqft']) {
    const v = snap.envelope![key]!;
    assert.deepEqual([v.value, v.status, v.statedNoLimit], [null, 'unverified_default', 'S1'], `${key} carries the source that states no limit`);
    assert.ok(
      snap.sourceCatalogue?.sources?.['S1'] ?? (snap as unknown as { sources?: Record<string, unknown> }).sources?.['S1'],
      'S1 is defined in the answer',
    );
  }
  const far = valueWords(snap.envelope!['maxFar']!);
  assert.equal(far.line, 'No limit, per S1 — indicative, unverified');
  assert.match(far.analysis, /does not compute on an unverified no-limit/);

  const jar = await signUpOrIn(svc.url, 'value.words.page@example.com');
  const res = await getPage(`${svc.url}/sites?address=${encodeURIComponent(ADDRESS)}`, jar);
  assert.equal(res.status, 200);
  const page = res.body;
  const text = await runSiteline(['check', ADDRESS], env);
  assert.equal(text.code, 0, text.stderr);
  const { connectClient } = await import('./mcp-support.ts');
  const { access_token: token } = JSON.parse(fs.readFileSync(path.join(configDir, 'credentials.json'), 'utf8'));
  const client = await connectClient(svc.url, 'modern', token);
  let summary: string;
  try {
    const res = await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: ADDRESS, source: 'full' } });
    summary = (res.content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
  for (const key of ['maxFar', 'minLotAreaSqft', 'maxHeightFt', 'minLotDepthFt']) {
    const w = valueWords(snap.envelope![key]!);
    const block = pageBlock(page, key);
    assert.ok(block.includes(w.says) && block.includes(w.status) && block.includes(w.analysis), `page ${key}: ${block}`);
    const row = text.stdout.split('\n').findIndex((l) => l.startsWith(`  ${key} `));
    assert.ok(row >= 0, `CLI row for ${key}`);
    const cli = text.stdout
      .split('\n')
      .slice(row, row + 2)
      .join(' ');
    assert.ok(cli.includes(w.says) && cli.includes(w.status) && cli.includes(w.analysis), `CLI ${key}: ${cli}`);
  }
  assert.ok(summary.includes(`maxFar ${far.line}: ${mcpAnalysis(far.analysis)}`), summary);
  // A value worked out from that FAR has no number either: it reads "Not calculated" and says why, in
  // the FAR's own words, on the page (block and summary card) and in the CLI; never "Unknown" beside its amber badge.
  const floor = snap.envelope!['maxFloorAreaSqft']!;
  assert.deepEqual([floor.value, floor.status, floor.inputs], [null, 'unverified_default', ['maxFar', 'lot.areaSqft']]);
  const why = 'Not calculated: maximum floor area ratio (FAR) reads “No limit, per S1”, which no bylaw text confirms.';
  const floorBlock = pageBlock(page, 'maxFloorAreaSqft').replace(/ ”/g, '”'); // S1 is a link: its tag left a space
  assert.ok(floorBlock.includes('Maximum floor area Not calculated indicative, unverified') && floorBlock.includes(why), floorBlock);
  assert.doesNotMatch(floorBlock, /\bUnknown\b|maxFar|lot\.areaSqft/);
  assert.match(
    page,
    /id="summary-maxFloorAreaSqft">Not calculated <span[^>]*>indicative, unverified<\/span>(<sup>.*?<\/sup>)?<br><small class="muted">Not calculated: maximum floor area ratio \(FAR\) reads “No limit, per (<a [^>]*>)?S1/,
  );
  const cliFloor = text.stdout.split('\n').findIndex((l) => l.startsWith('  maxFloorAreaSqft '));
  assert.ok(
    text.stdout
      .split('\n')
      .slice(cliFloor, cliFloor + 4)
      .join(' ')
      .includes(`why: ${why}`),
    text.stdout,
  );
  // Never "unknown" beside a source's "No limit".
  assert.doesNotMatch(pageBlock(page, 'maxFar'), /unknown/i);
  assert.doesNotMatch(summary, /maxFar unknown/i);
});

/** Every status, with a number and without one, and a source's no-limit on each. */
function variants(): WordedValue[] {
  const out: WordedValue[] = [];
  for (const status of VALUE_STATUSES) {
    out.push({ value: 45, status, unit: 'ft' });
    out.push({ value: null, status });
    out.push({ value: null, status, statedNoLimit: 'S1' });
    // a value worked out from others (a derived member) without a number: "Not calculated"
    out.push({ value: null, status, inputs: ['maxFar', 'lot.areaSqft'] });
  }
  return out;
}

test('every status, worded by valueWords, reads the same on the page, in the PDF, in the CLI text and in the MCP summary', async () => {
  const json = await runSiteline(['check', ADDRESS, '--json'], env);
  assert.equal(json.code, 0, json.stderr);
  const base = JSON.parse(json.stdout) as Snapshot;
  const all = variants();
  const seen = new Set<ValueStatus>();
  for (const [i, v] of all.entries()) {
    const w = valueWords(v);
    seen.add(v.status);
    const value = { ...v } as SnapshotValue;
    if (value.value === null) delete value.unit;
    const snap: Snapshot = { ...base, envelope: { ...base.envelope, maxFar: value } };

    const block = pageBlock(`${envelopeSectionHtml(snap)}`, 'maxFar');
    assert.ok(block.includes(w.says) && block.includes(w.status) && block.includes(w.analysis), `page #${i} ${JSON.stringify(v)}: ${block}`);

    const cliLines = renderSnapshot(snap).split('\n');
    const row = cliLines.findIndex((l) => l.startsWith('  maxFar '));
    const cli = cliLines.slice(row, row + 2).join(' ');
    assert.ok(cli.includes(w.says) && cli.includes(`${w.status} (${v.status})`) && cli.includes(w.analysis), `CLI #${i}: ${cli}`);

    const summary = snapshotSummary(snap);
    // The MCP text adds what the analysis does to a value without a number (a number's status words say it).
    assert.ok(summary.includes(`maxFar ${w.line}${v.value === null ? `: ${mcpAnalysis(w.analysis)}` : ''}`), `MCP #${i}: ${summary}`);

    // The page never says "unknown" beside a no-limit, and never a number beside an unknown.
    if (w.says.startsWith('No limit')) assert.doesNotMatch(block, /\bUnknown\b/);
  }
  assert.deepEqual([...seen].sort(), [...VALUE_STATUSES].sort(), 'every value status rendered');

  // The PDF: one report holding every variant, each row read back in drawing order.
  const input = sampleReportInput();
  input.envelope = all.map((v, i) => ({
    key: `maxFar${i}`,
    label: `Value ${String(i).padStart(2, '0')}`,
    value:
      v.value === null
        ? { value: null, status: v.status, ...(v.statedNoLimit ? { statedNoLimit: v.statedNoLimit } : {}), ...(v.inputs ? { inputs: [...v.inputs] } : {}) }
        : { value: v.value as number, status: v.status, unit: v.unit! },
  }));
  input.unknowns = [];
  const pdf = await pdfText((await composeReport({ ...input, detail: 'detailed' })).pdf);
  for (const [i, v] of all.entries()) {
    const w = valueWords(v);
    const label = `Value ${String(i).padStart(2, '0')}`;
    const at = pdf.indexOf(label);
    assert.ok(at >= 0, `PDF row ${label}`);
    const row = pdf.slice(at, pdf.indexOf('Value ', at + label.length) > 0 ? pdf.indexOf('Value ', at + label.length) : undefined);
    assert.ok(row.includes(w.says) && row.includes(cap(w.status)) && row.includes(w.analysis), `PDF ${label} ${JSON.stringify(v)}: ${row}`);
  }
});
