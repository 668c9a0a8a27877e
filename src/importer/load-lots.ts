// Loads a place's parcels together with their derived lot facts and district shares, batch by batch:
// the lots are indexed once (compactly), then each batch of parcel rows is written with its facts and
// its districts on the same row. Memory stays at one batch of results whatever the size of the place.
// Large places derive on a worker thread (deriveIn: 'worker'): the main thread, which runs PGlite,
// only turns rows into COPY batches and loads them, while the second core indexes and derives.
import crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { Queryable } from '../db/database.ts';
import { iterateLotFacts, storedLotBatches, type DeriveOptions, type DeriveReport, type LotFactsInput, type StoredLotBatch } from './derive-lot-facts.ts';
import type { MultiPolygonCoords } from '../core/geo/primitives.ts';
import { CopyPipeline, insertParcels, type LoadOptions, type ParcelRow } from './load-tables.ts';
import type { FlatLots, FromWorker, ToWorker } from './lot-facts-worker.ts';

export interface LotsLoaded {
  parcels: number;
  shares: number;
  derive: DeriveReport;
}

export interface LotsLoadOptions extends LoadOptions, DeriveOptions {
  /** Where lot facts are derived: on this thread (default) or on a worker thread (large places). */
  deriveIn?: 'thread' | 'worker';
  /**
   * Other loading to do while the lots are being indexed (on a worker, that is the time the first
   * batch of facts takes): it runs after the index inputs are handed over, before any parcel is written.
   */
  meanwhile?: () => Promise<void>;
}

/** Parcels from which importPlace derives on a worker thread. */
export const WORKER_DERIVE_MIN_PARCELS = 10_000;

/**
 * Old-generation heap ceiling of the derivation worker. Lot geometry is off-heap (typed arrays); on
 * the heap are the zones and streets as cloned arrays (the largest zoning we ship is 2 MB of
 * GeoJSON) and short-lived batches; the lot ids stay on the main thread. A higher ceiling only
 * lets garbage pile up: measured on the million-lot bench, 256 MB instead of 128 MB raised the
 * import's peak RSS by about 50 MB, 1 GB by over 100 MB. A place that outgrows it fails with the
 * worker's out-of-memory error, named.
 */
const WORKER_HEAP_MB = 128;
/** Lots per message while the worker's index is fed; batches the worker may derive ahead of the loader. */
const FEED_LOTS = 25_000;
const AHEAD = 3;

/**
 * `index` is read once to build the geometry indexes (its parcels must be the same, in the same order,
 * as `rows`); `rows` is read once to write the parcels. Two generators over one source are fine.
 * Run it inside a transaction: on a worker, index and rows that differ are found at the end.
 */
export async function insertLotsWithFacts(
  q: Queryable,
  placeId: string,
  index: LotFactsInput,
  rows: Iterable<ParcelRow>,
  opts: LotsLoadOptions = {},
): Promise<LotsLoaded> {
  const size = opts.batchSize ?? 5000;
  const stop = { now: () => undefined as void };
  // On a worker the lot ids stay here: a digest of the index's ids, in order, is checked against
  // the rows' at the end (a mismatch fails the load, and with it the import's transaction).
  const indexIds = crypto.createHash('sha256');
  const rowIds = crypto.createHash('sha256');
  const derived = opts.deriveIn === 'worker' ? deriveOnWorker(index, size, opts, stop, indexIds) : deriveHere(index, size, opts);
  let parcelCount = 0;
  let shareCount = 0;
  let pending: ParcelRow[] = [];
  let batch: DerivedBatch | null = null;
  let at = 0;
  // Batch k is written while batch k+1 is encoded (one COPY at a time on q's connection).
  const pipeline = new CopyPipeline();
  try {
    let first: Promise<IteratorResult<DerivedBatch, DeriveReport>> | null = derived.next();
    first.catch(() => undefined); // awaited below; if `meanwhile` fails first, its error is the one reported
    if (opts.meanwhile) await opts.meanwhile();
    for (const row of rows) {
      if (!batch || at === batch.facts.length) {
        const next = await (first ?? derived.next());
        first = null;
        if (next.done) throw new Error(`lot facts ended before parcel ${row.parcelExtId}: index and rows differ`);
        batch = next.value;
        at = 0;
      }
      if (batch.ids) {
        const id = batch.ids[at]!;
        if (id !== row.parcelExtId) throw new Error(`lot facts for ${id} arrived with parcel ${row.parcelExtId}: index and rows differ`);
      } else {
        rowIds.update(row.parcelExtId).update('\0');
      }
      // pending[k] takes the batch's k-th facts: a batch's rows are written together, by position.
      pending.push(row);
      at++;
      if (at === batch.facts.length) {
        shareCount += batch.shares;
        parcelCount += await insertParcels(q, placeId, pending, { batchSize: size, pipeline, ...(opts.into ? { into: opts.into } : {}) }, batch);
        pending = [];
        opts.onBatch?.(parcelCount);
      }
    }
    if (batch && at !== batch.facts.length) throw new Error('more lot facts than parcels: index and rows differ');
    await pipeline.drain();
    const end = await (first ?? derived.next());
    if (!end.done) throw new Error('more lot facts than parcels: index and rows differ');
    if (opts.deriveIn === 'worker' && indexIds.digest('hex') !== rowIds.digest('hex')) {
      throw new Error('the parcels arrived in another order, or with other ids, than the lots indexed: index and rows differ');
    }
    return { parcels: parcelCount, shares: shareCount, derive: end.value };
  } finally {
    stop.now(); // a failure here must not wait for the worker's next batch
    await pipeline.drain().catch(() => undefined); // nothing of this load still writing once it has failed
    await derived.return?.(undefined as never);
  }
}

/** A batch of derived lots; a worker's batches carry no ids (the rows are checked by digest instead). */
type DerivedBatch = Omit<StoredLotBatch, 'ids'> & { ids?: string[] };

async function* deriveHere(index: LotFactsInput, size: number, opts: DeriveOptions): AsyncGenerator<DerivedBatch, DeriveReport> {
  return yield* storedLotBatches(iterateLotFacts(index, opts), size);
}

/** Feeds the index inputs to a worker in flat typed arrays, then yields its batches as they come. */
async function* deriveOnWorker(
  index: LotFactsInput,
  size: number,
  opts: DeriveOptions,
  stop: { now: () => void },
  ids: crypto.Hash,
): AsyncGenerator<DerivedBatch, DeriveReport> {
  const worker = startModuleWorker('lot-facts-worker', { maxOldGenerationSizeMb: WORKER_HEAP_MB });
  stop.now = () => void worker.terminate();
  const inbox: FromWorker[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'progress') opts.onProgress?.(m.message);
    else inbox.push(m);
    notify();
  });
  worker.on('error', (err) => {
    failure = err;
    notify();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`the lot facts worker exited (${code}) before it was done`);
    notify();
  });
  const send = (m: ToWorker, transfer: ArrayBuffer[] = []) => worker.postMessage(m, transfer);
  try {
    for (const flat of flatten(index.parcels, ids))
      send(flat, [flat.inside.buffer, flat.coords.buffer, flat.ringEnd.buffer, flat.polyEnd.buffer, flat.lotEnd.buffer] as ArrayBuffer[]);
    send({ type: 'zones', zones: [...index.zones].map((z) => ({ zoneId: z.zoneId, layer: z.layer, code: z.code, name: z.name, geom: z.geom })) });
    send({ type: 'streets', streets: [...index.streets].map((s) => ({ streetKey: s.streetKey, geom: s.geom })) });
    send({ type: 'derive', batchSize: size, ahead: AHEAD });
    for (;;) {
      while (inbox.length === 0 && !failure) await new Promise<void>((resolve) => (wake = resolve));
      const m = inbox.shift();
      if (!m) throw failure!;
      if (m.type === 'error') throw new Error(`lot facts worker: ${m.message}`);
      if (m.type === 'done') return m.report;
      if (m.type === 'batch') {
        send({ type: 'credit' });
        yield m;
      }
    }
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}

/**
 * A worker running a sibling module: the compiled .js under dist/ (`npm start`), or the .ts source
 * under tsx (tests, development), whose loader hooks a Node 20 worker does not inherit: a two-line
 * bootstrap registers them in the worker, then loads it.
 */
function startModuleWorker(name: string, resourceLimits: { maxOldGenerationSizeMb: number }): Worker {
  if (import.meta.url.endsWith('.js')) return new Worker(new URL(`./${name}.js`, import.meta.url), { resourceLimits });
  const module = new URL(`./${name}.ts`, import.meta.url);
  const tsx = import.meta.resolve('tsx/esm/api'); // resolved here: the worker's own base is the working directory
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}

/** The parcels of `index` as flat arrays, FEED_LOTS lots at a time. */
function* flatten(parcels: LotFactsInput['parcels'], ids: crypto.Hash): Generator<FlatLots> {
  let count = 0;
  let inside: number[] = [];
  let coords: number[] = [];
  let ringEnd: number[] = [];
  let polyEnd: number[] = [];
  let lotEnd: number[] = [];
  const out = (): FlatLots => ({
    type: 'lots',
    count,
    inside: Float64Array.from(inside),
    coords: Float64Array.from(coords),
    ringEnd: Uint32Array.from(ringEnd),
    polyEnd: Uint32Array.from(polyEnd),
    lotEnd: Uint32Array.from(lotEnd),
  });
  for (const p of parcels) {
    ids.update(p.parcelExtId).update('\0');
    count++;
    inside.push(p.insideLon, p.insideLat);
    const geom: MultiPolygonCoords = Array.isArray(p.geom) ? p.geom : [];
    for (const poly of geom) {
      for (const ring of poly) {
        for (const pt of ring) coords.push(pt[0], pt[1]);
        ringEnd.push(coords.length / 2);
      }
      polyEnd.push(ringEnd.length);
    }
    lotEnd.push(polyEnd.length);
    if (count >= FEED_LOTS) {
      yield out();
      count = 0;
      inside = [];
      coords = [];
      ringEnd = [];
      polyEnd = [];
      lotEnd = [];
    }
  }
  if (count) yield out();
}
