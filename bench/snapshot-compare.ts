// Snapshot answers before/after a change to the lookup path: `dump <file> [n]` writes the canonical JSON
// (generatedAt removed) of getFeasibilitySnapshot, its MCP summary line and previewSiteCoverage for about n Cambridge addresses
// (the address table as written, plus variants that take the other geocoder paths: a number the table
// lacks, a misspelt street, a postcode, a unit, a comma-less city); `compare <file> [n]` recomputes them
// and prints how many differ (with an after-file, writing the recomputed answers there too). Runs on the cached PGlite test template (test/support/harness.ts).
import { withMailer } from '../src/context.ts';
import fs from 'node:fs';
import { createPlacesDb, SHARED_DATA } from '../test/support/harness.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { systemClock } from '../src/clock.ts';
import { canonicalJson } from '../src/core/canonical-json.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { previewSiteCoverage } from '../src/snapshot/preview.ts';
import { snapshotSummary } from '../src/snapshot/summary.ts';
import { cambridgeAddresses } from './snapshot-compare-addresses.ts';

async function answers(n: number): Promise<Map<string, string>> {
  const { db, close } = await createPlacesDb(['cambridge-ma']);
  const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { sourceDir: SHARED_DATA, autoImport: false });
  const ctx = withMailer({ config, db, clock: systemClock, logger: createLogger('silent') });
  const out = new Map<string, string>();
  for (const a of cambridgeAddresses(n, true)) {
    const snapshot = await getFeasibilitySnapshot(ctx, a);
    // the MCP text's summary line too (worded by core/value-words.ts, as the page, the PDF and the CLI)
    const summary = snapshotSummary(snapshot);
    const s = snapshot as unknown as Record<string, unknown>;
    delete s['generatedAt'];
    out.set(a, canonicalJson({ snapshot: s, summary, preview: await previewSiteCoverage(ctx, a) }));
  }
  await close();
  return out;
}

const [mode, file, nArg, afterFile] = process.argv.slice(2);
if ((mode !== 'dump' && mode !== 'compare') || !file) throw new Error('usage: snapshot-compare.ts dump|compare <file> [n] [after-file]');
const got = await answers(Number(nArg ?? 500));
if (mode === 'dump') {
  fs.writeFileSync(file, JSON.stringify(Object.fromEntries(got)));
  const answered = [...got.values()].filter((v) => v.includes('"answered":true')).length;
  console.log(`wrote ${got.size} answers (${answered} answered) to ${file}`);
} else {
  const before = new Map(Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>));
  // compare ... <after-file>: the recomputed answers too, to read what changed in the ones that differ.
  if (afterFile) fs.writeFileSync(afterFile, JSON.stringify(Object.fromEntries(got)));
  let same = 0;
  const diff: string[] = [];
  for (const [a, v] of got) before.get(a) === v ? same++ : diff.push(a);
  console.log(
    `${same}/${got.size} answers identical (canonical JSON of snapshot + MCP summary + preview)${diff.length ? `; differ: ${diff.slice(0, 10).join(' | ')}` : ''}`,
  );
  if (diff.length) process.exitCode = 1;
}
