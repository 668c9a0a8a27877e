// docs/examples/*.json are real snapshots; this fails when the code's answer changes and the docs
// were not regenerated (node --import tsx scripts/snapshot-example.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPlacesDb, ROOT, SHARED_DATA } from './support/harness.ts';
import { EXAMPLES, exampleContext } from '../scripts/snapshot-example.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';

test('the documented example snapshots are what the code answers today', async () => {
  const tdb = await createPlacesDb(['cambridge-ma', 'chicago-il']);
  try {
    const ctx = exampleContext(tdb.db, SHARED_DATA);
    for (const ex of EXAMPLES) {
      const documented = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/examples', ex.file), 'utf8'));
      const now = JSON.parse(JSON.stringify(await getFeasibilitySnapshot(ctx, ex.address)));
      assert.deepEqual(now, documented, `docs/examples/${ex.file} is stale: regenerate it with scripts/snapshot-example.ts`);
    }
  } finally {
    await tdb.close();
  }
});
