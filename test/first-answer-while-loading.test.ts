// @engine-independent: the first start of a fresh clone, which runs on embedded PGlite in a new data directory
// Issue 30, goal 2: a first start listens before it imports, imports the default places one at a time,
// and answers each place's addresses as soon as that place is loaded. The real service on a fresh data
// directory, driven over HTTP (/readyz, the MCP tool through the SDK client). Each place's import is
// held at a point of the test's choosing by real I/O: one of its held documents is a named pipe in a
// copy of the source directory, so verifying that file's checksum waits until the test writes the
// file's true bytes into the pipe. Nothing is timed; the order of events is observed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SHARED_DATA } from './support/harness.ts';
import { getUserToken } from './support/auth-flow.ts';
import { connectClient } from './mcp-support.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startService } from '../src/service.ts';
import { loadManifest } from '../src/places/manifest.ts';

const CAMBRIDGE = '11 Acorn St, Cambridge, MA';

/**
 * A copy of a place's source folder made of symbolic links to the real files, except `held`, which is a
 * named pipe: reading it waits for a writer. Returns what releases it (writes the real bytes once).
 */
function mirrorWithPipe(from: string, to: string, held: string): { release(): Promise<void>; unblock(): void } {
  for (const entry of fs.readdirSync(from, { recursive: true, withFileTypes: true })) {
    const abs = path.join(entry.parentPath, entry.name);
    const rel = path.relative(from, abs);
    if (entry.isDirectory()) fs.mkdirSync(path.join(to, rel), { recursive: true });
    else if (rel !== held) {
      fs.mkdirSync(path.dirname(path.join(to, rel)), { recursive: true });
      fs.symlinkSync(abs, path.join(to, rel));
    }
  }
  fs.mkdirSync(path.dirname(path.join(to, held)), { recursive: true });
  execFileSync('mkfifo', [path.join(to, held)]);
  const bytes = fs.readFileSync(path.join(from, held));
  let released = false;
  return {
    // Waits for the import to open the pipe, then writes the file's true bytes.
    async release() {
      released = true;
      await fs.promises.writeFile(path.join(to, held), bytes);
    },
    // After a failed assertion: lets a waiting import go on without waiting for it (never blocks).
    unblock() {
      if (released) return;
      released = true;
      const fd = fs.openSync(path.join(to, held), fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
      try {
        fs.writeSync(fd, bytes);
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

interface Readyz {
  status: string;
  reason?: string;
  loading?: boolean;
  places: Array<{ slug: string; status: string; ready: boolean; loading: string | null }>;
}

async function readyz(url: string): Promise<{ status: number; retryAfter: string | null; body: Readyz }> {
  const r = await fetch(`${url}/readyz`);
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as Readyz };
}

/** Polls /readyz until `until` holds (each poll is an observation; there is no deadline but the test's). */
async function readyzUntil(url: string, until: (r: Awaited<ReturnType<typeof readyz>>) => boolean): Promise<Awaited<ReturnType<typeof readyz>>> {
  for (;;) {
    const r = await readyz(url);
    if (until(r)) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const loadingOf = (r: Readyz) => Object.fromEntries(r.places.map((p) => [p.slug, [p.ready, p.loading]]));

test('a first start on a fresh data directory answers a Cambridge address while the next place is still importing; an address in a place still loading is told to ask again', {
  timeout: 900_000,
}, async () => {
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test-first-answer-'));
  try {
    // Two default places: Cambridge (live, imported first) and Paradise (planned, after it).
    const placesDir = path.join(work, 'places');
    for (const slug of ['cambridge-ma', 'paradise-tx']) fs.cpSync(path.join(ROOT, 'places', slug), path.join(placesDir, slug), { recursive: true });
    const sourceDir = path.join(work, 'data');
    const cambridge = loadManifest('cambridge-ma', placesDir);
    const paradise = loadManifest('paradise-tx', placesDir);
    // A licence file each: hashed by the import's verification, read by nothing else on the way.
    const cambridgePipe = mirrorWithPipe(path.join(SHARED_DATA, cambridge.sourceFolder), path.join(sourceDir, cambridge.sourceFolder), 'LICENSE.md');
    const paradisePipe = mirrorWithPipe(path.join(SHARED_DATA, paradise.sourceFolder), path.join(sourceDir, paradise.sourceFolder), 'LICENSE.md');

    const config = loadConfig(
      { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', SITELINE_ANALYSIS_WORKERS: '0' },
      { port: 0, host: '127.0.0.1', sourceDir, placesDir, autoImport: true, dataDir: path.join(work, 'state') },
    );
    const svc = await startService(config, { logger: createLogger(process.env.TEST_FIRST_LOG ?? 'silent') });
    try {
      // Listening before any place is loaded: Cambridge is importing, Paradise waits its turn.
      const first = await readyzUntil(svc.url, (r) => r.body.places.some((p) => p.slug === 'cambridge-ma' && p.loading === 'importing'));
      assert.equal(first.status, 503, JSON.stringify(first.body));
      assert.equal(first.body.reason, 'places_loading');
      assert.ok(Number(first.retryAfter) > 0, 'a Retry-After while the live place loads');
      assert.deepEqual(loadingOf(first.body), { 'cambridge-ma': [false, 'importing'], 'paradise-tx': [false, 'queued'] });

      // A signed-in agent asks about a Cambridge address now: not answered, and told to ask again.
      const token = await getUserToken(svc.url, 'first-answer@example.com');
      const client = await connectClient(svc.url, 'modern', token);
      try {
        const ask = async () =>
          (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: CAMBRIDGE, source: 'full' } })).structuredContent as Record<
            string,
            any
          >;
        const early = await ask();
        assert.equal(early.answered, false);
        assert.equal(early.coverage.status, 'live_unavailable');
        assert.equal(early.coverage.eligibilityKnown, true);
        assert.ok(early.coverage.retryAfterSeconds > 0, JSON.stringify(early.coverage));
        assert.match(early.coverage.message, /being imported by this server right now/);
        assert.match(early.coverage.message, /ask again in about \d+ seconds/);
        assert.equal(early.lot ?? null, null, 'no lot while the place is loading');
        assert.equal((await readyz(svc.url)).body.places.find((p) => p.slug === 'cambridge-ma')!.loading, 'importing', 'still held');

        // Cambridge's import goes on; Paradise's waits on its held file.
        await cambridgePipe.release();
        const middle = await readyzUntil(svc.url, (r) => r.body.places.some((p) => p.slug === 'cambridge-ma' && p.ready));
        assert.equal(middle.status, 200, 'every live place is loaded: ready for orchestrators');
        assert.equal(middle.body.loading, true, 'the start is still loading places');
        assert.deepEqual(loadingOf(middle.body), { 'cambridge-ma': [true, 'ready'], 'paradise-tx': [false, 'importing'] });

        // The same address is answered now, with its lot, while Paradise is still importing.
        const answered = await ask();
        assert.equal(answered.answered, true, JSON.stringify(answered.coverage));
        assert.ok(answered.lot?.parcelExternalId, 'a lot');
        assert.equal(answered.coverage?.retryAfterSeconds, undefined);
        assert.deepEqual(loadingOf((await readyz(svc.url)).body)['paradise-tx'], [false, 'importing'], 'Paradise was still importing when the answer came');
      } finally {
        await client.close();
      }

      await paradisePipe.release();
      const imported = await svc.placesLoaded;
      assert.deepEqual(
        imported.map((r) => r.slug),
        ['cambridge-ma', 'paradise-tx'],
        'one at a time, the live place first',
      );
      const last = await readyz(svc.url);
      assert.equal(last.status, 200);
      assert.equal(last.body.loading, undefined);
      assert.deepEqual(loadingOf(last.body), { 'cambridge-ma': [true, null], 'paradise-tx': [true, null] });
    } finally {
      cambridgePipe.unblock();
      paradisePipe.unblock();
      await svc.close();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
