// Regenerates docs/examples/*.json: real snapshots produced by the code from the shared data.
// Run: node --import tsx scripts/snapshot-example.ts   (test/docs-example.test.ts checks they are current)
import { withMailer } from '../src/context.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { ManualClock } from '../src/clock.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import type { AppContext } from '../src/context.ts';

export const EXAMPLES = [
  { file: 'cambridge-snapshot.json', address: '11 Acorn St, Cambridge, MA' },
  { file: 'chicago-not-live.json', address: '233 S Wacker Dr, Chicago, IL 60606' },
] as const;

/** A fixed time, so the examples only change when the answer does. */
export const EXAMPLE_CLOCK_AT = Date.UTC(2026, 10, 1);

export function exampleContext(db: AppContext['db'], sourceDir: string): AppContext {
  const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { sourceDir, autoImport: false });
  return withMailer({ config, db, clock: new ManualClock(EXAMPLE_CLOCK_AT), logger: createLogger('silent') });
}

async function main(): Promise<void> {
  const sourceDir = path.resolve(import.meta.dirname, '../../shared/data');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-example-'));
  const db = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
  try {
    await migrate(db);
    const ctx = exampleContext(db, sourceDir);
    const { importPlace } = await import('../src/importer/import-place.ts');
    for (const slug of ['cambridge-ma', 'chicago-il']) await importPlace(ctx, slug, { sourceDir, quiet: true });
    for (const ex of EXAMPLES) {
      const snap = await getFeasibilitySnapshot(ctx, ex.address);
      const out = path.resolve(import.meta.dirname, '../docs/examples', ex.file);
      fs.writeFileSync(out, JSON.stringify(snap, null, 2) + '\n');
      console.log(`wrote ${path.relative(process.cwd(), out)}`);
    }
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
