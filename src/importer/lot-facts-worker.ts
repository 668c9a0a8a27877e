// The worker side of insertLotsWithFacts({ deriveIn: 'worker' }): lot facts and district shares are
// derived on a second core while the main thread writes the parcels (on PGlite the database runs on
// the main thread, so the two could not overlap there).
// Protocol (messages in order):
//   in:  { type: 'lots', ... } (any number; flat typed arrays, transferred), { type: 'zones' },
//        { type: 'streets' }, { type: 'derive', batchSize, ahead }, then one { type: 'credit' } per
//        batch the main thread has taken;
//   out: { type: 'batch', facts, zones, primary } (at most `ahead` batches not yet credited),
//        { type: 'progress', message }, { type: 'done', report } or { type: 'error', message }.
import { parentPort } from 'node:worker_threads';
import { iterateLotFacts, storedLotBatches, type LotFactsInput } from './derive-lot-facts.ts';
import type { MultiPolygonCoords, Position } from '../core/geo/primitives.ts';

/** A batch of lots in flat arrays: coordinates as lon/lat pairs, with ring, polygon and lot ends. */
export interface FlatLots {
  type: 'lots';
  /** Lots in this batch. Their ids stay on the main thread, which checks the order itself. */
  count: number;
  inside: Float64Array;
  coords: Float64Array;
  /** ringEnd[r]: vertex count after ring r. */
  ringEnd: Uint32Array;
  /** polyEnd[p]: ring count after polygon p. */
  polyEnd: Uint32Array;
  /** lotEnd[i]: polygon count after lot i. */
  lotEnd: Uint32Array;
}

export type ToWorker =
  | FlatLots
  | { type: 'zones'; zones: { zoneId: string; layer: string; code: string; name: string | null; geom: MultiPolygonCoords }[] }
  | { type: 'streets'; streets: { streetKey: string; geom: Position[] | Position[][] }[] }
  | { type: 'derive'; batchSize: number; ahead: number }
  | { type: 'credit' };

export type FromWorker =
  | { type: 'batch'; facts: string[]; zones: string[]; primary: (string | null)[]; shares: number }
  | { type: 'progress'; message: string }
  | { type: 'done'; report: import('./derive-lot-facts.ts').DeriveReport }
  | { type: 'error'; message: string };

function* lotsOf(batches: FlatLots[]): Generator<{ parcelExtId: string; geom: MultiPolygonCoords; insideLon: number; insideLat: number }> {
  for (let b = 0; b < batches.length; b++) {
    const f = batches[b]!;
    let ring = 0;
    let poly = 0;
    let vert = 0;
    for (let i = 0; i < f.count; i++) {
      const geom: MultiPolygonCoords = [];
      for (; poly < f.lotEnd[i]!; poly++) {
        const rings: Position[][] = [];
        for (; ring < f.polyEnd[poly]!; ring++) {
          const pts: Position[] = [];
          for (; vert < f.ringEnd[ring]!; vert++) pts.push([f.coords[2 * vert]!, f.coords[2 * vert + 1]!]);
          rings.push(pts);
        }
        geom.push(rings);
      }
      yield { parcelExtId: '', geom, insideLon: f.inside[2 * i]!, insideLat: f.inside[2 * i + 1]! };
    }
    batches[b] = undefined as unknown as FlatLots; // indexed: let the flat copy go
  }
}

if (parentPort) {
  const port = parentPort;
  const post = (m: FromWorker) => port.postMessage(m);
  const batches: FlatLots[] = [];
  let zones: LotFactsInput['zones'] = [];
  let streets: LotFactsInput['streets'] = [];
  let credit = 0;
  let wake: (() => void) | null = null;

  const run = async (batchSize: number) => {
    const sizeHint = { items: 0, polygons: 0, rings: 0, vertices: 0 };
    for (const f of batches) {
      sizeHint.items += f.count;
      sizeHint.polygons += f.polyEnd.length;
      sizeHint.rings += f.ringEnd.length;
      sizeHint.vertices += f.coords.length / 2;
    }
    const stored = storedLotBatches(
      iterateLotFacts({ parcels: lotsOf(batches), zones, streets }, { onProgress: (message) => post({ type: 'progress', message }), sizeHint }),
      batchSize,
    );
    for (;;) {
      const r = stored.next();
      if (r.done) {
        post({ type: 'done', report: r.value });
        return;
      }
      while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
      credit--;
      const { facts, zones: zoneJson, primary, shares } = r.value; // the ids are all '' here: the main thread has them
      post({ type: 'batch', facts, zones: zoneJson, primary, shares });
    }
  };

  port.on('message', (m: ToWorker) => {
    if (m.type === 'lots') batches.push(m);
    else if (m.type === 'zones') zones = m.zones;
    else if (m.type === 'streets') streets = m.streets;
    else if (m.type === 'credit') {
      credit++;
      const w = wake;
      wake = null;
      w?.();
    } else if (m.type === 'derive') {
      credit = m.ahead;
      run(m.batchSize).catch((err: unknown) => post({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
    }
  });
}
