// The start-up load of the default places, as this process sees it: which places wait their turn,
// which one is importing now, which are ready and which failed. The service listens before it
// imports (src/service.ts); places import one at a time and each answers as soon as its import
// commits. The snapshot reads this to tell an address in a place still loading ("retry shortly")
// from one in a place that nobody is loading ("the operator must import it"); /readyz lists it.
// Kept per database object (like the snapshot cache), so two services in one process do not mix.
import type { Manifest } from './manifest.ts';
import type { Coverage } from '../core/snapshot-types.ts';

/** One default place as this database holds it. */
export interface PlaceLoadState {
  slug: string;
  /** The manifest's status: a `live` place is one the service promises to answer. */
  manifestStatus: Manifest['status'];
  loaded: boolean;
  /** Loaded, but from another manifest or importer version: re-imported at the next start with data. */
  stale: boolean;
  importedAt: string | null;
  /** Loaded, but its join rates are below the manifest's thresholds: kept planned_not_live. */
  joinsTooPoor: boolean;
}

export type StartupLoadState = 'queued' | 'importing' | 'ready' | 'failed';

export interface StartupPlace {
  slug: string;
  state: StartupLoadState;
  /** When its import began and ended (ISO), when it did. */
  startedAt?: string;
  finishedAt?: string;
  /** Why it failed (the import's error message). */
  error?: string;
}

export interface StartupLoad {
  /** Every default place as the start found it (loaded or not), updated as imports finish. */
  states: PlaceLoadState[];
  /** The places this start imports, in order. */
  queue: StartupPlace[];
  /** True once every queued place is imported or failed. */
  done: boolean;
  /** Set by close(): no further place starts importing. */
  stopping: boolean;
}

const byDb = new WeakMap<object, StartupLoad>();

/** Records the start-up load of a database: `todo` are the slugs to import, in order. */
export function beginStartupLoad(db: object, states: PlaceLoadState[], todo: string[]): StartupLoad {
  const load: StartupLoad = { states, queue: todo.map((slug) => ({ slug, state: 'queued' })), done: todo.length === 0, stopping: false };
  byDb.set(db, load);
  return load;
}

/** The start-up load of this database in this process, if one was begun. */
export function startupLoadOf(db: object): StartupLoad | undefined {
  return byDb.get(db);
}

/** The place is waiting for, or in, its start-up import in this process: how many places import before it. */
export function placeStillLoading(db: object, slug: string): { state: 'queued' | 'importing'; placesAhead: number } | undefined {
  const load = byDb.get(db);
  if (!load || load.done) return undefined;
  const i = load.queue.findIndex((p) => p.slug === slug);
  if (i < 0) return undefined;
  const p = load.queue[i]!;
  if (p.state !== 'queued' && p.state !== 'importing') return undefined;
  return { state: p.state, placesAhead: load.queue.slice(0, i).filter((q) => q.state === 'queued' || q.state === 'importing').length };
}

/** Seconds after which a caller asking about a place still loading may ask again. */
export const LOADING_RETRY_AFTER_SECONDS = 30;

/**
 * The coverage block of an address in a live place this server is importing at start: not answered
 * yet (answered: false, status live_unavailable, eligibility known), and, unlike a place nobody is
 * loading, waiting helps: a retry after `retryAfterSeconds` may be answered.
 */
export function stillLoadingCoverage(
  place: { name: string; geoDivisionId: string },
  placeInfo: NonNullable<Coverage['place']>,
  loading: { state: 'queued' | 'importing'; placesAhead: number },
): Coverage {
  const when =
    loading.state === 'importing'
      ? 'its data is being imported by this server right now (it is starting)'
      : `its data is queued for import at this server's start, behind ${loading.placesAhead} other place${loading.placesAhead === 1 ? '' : 's'}`;
  return {
    status: 'live_unavailable',
    eligibilityKnown: true,
    geoDivisionId: place.geoDivisionId,
    place: placeInfo,
    message: `${place.name} is covered, but ${when}, so this address cannot be answered yet. Nothing is wrong with the address: ask again in about ${LOADING_RETRY_AFTER_SECONDS} seconds; it is answered as soon as the import finishes (GET /readyz lists each place and whether it is ready).`,
    retryAfterSeconds: LOADING_RETRY_AFTER_SECONDS,
  };
}
