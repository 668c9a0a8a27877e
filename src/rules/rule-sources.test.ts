// @engine-independent: reads files only, touches no database.
// The research notes' source table: no file is an empty table (expected), a file that cannot be read
// is an error the caller hears about, and a readable file is parsed; a rules reload reads it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ruleSources } from './rule-sources.ts';
import { rulesIn } from '../../test/support/rules-context.ts';

test('research notes: missing -> empty; unreadable -> an error naming the file; present -> its S-ids', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-rule-sources-'));
  try {
    const ctx = rulesIn({ sourceDir: dir });
    fs.mkdirSync(path.join(dir, 'none'));
    assert.equal(ruleSources(ctx, 'none').size, 0);

    fs.mkdirSync(path.join(dir, 'broken', 'RULES-FACTS.md'), { recursive: true }); // a directory where the file should be
    assert.throws(() => ruleSources(ctx, 'broken'), /Cannot read the research notes .*RULES-FACTS\.md: EISDIR/);

    fs.mkdirSync(path.join(dir, 'good'));
    fs.writeFileSync(
      path.join(dir, 'good', 'RULES-FACTS.md'),
      '| id | source | date | kind |\n|---|---|---|---|\n| S1 | Zoning Ordinance – https://example.org/zo | 2025-02-10 | bylaw |\n',
    );
    assert.deepEqual([...ruleSources(ctx, 'good').values()], [{ id: 'S1', title: 'Zoning Ordinance', url: 'https://example.org/zo', date: '2025-02-10' }]);
    // kept until the context's rules are reloaded, then read again
    fs.appendFileSync(path.join(dir, 'good', 'RULES-FACTS.md'), '| S2 | Zoning Map | 2025-03-01 | map |\n');
    assert.deepEqual([...ruleSources(ctx, 'good').keys()], ['S1']);
    ctx.caches.rulesReloaded();
    assert.deepEqual([...ruleSources(ctx, 'good').keys()], ['S1', 'S2']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
