// The caches of one application context (ctx.caches): no cache of data that can change lives in a module,
// so two apps in one process (two tests, a CLI command beside a service) never see each other's. Each
// cache is made on first use and hears of changes through one door per kind of change:
//   placeChanged(placeId)  a place's imported data was rewritten (an import in this process, or another
//                          instance's import seen by this one);
//   rulesReloaded()        the places directory's files (rules files, manifests) and the documents and
//                          notes they cite may have changed on disk: read them again.
// A kind of cache is declared beside the code that uses it (`cacheKind(name, make)`) and answers the doors
// it cares about, so a new cache cannot be forgotten by the code that changes the data: it is dropped by
// its own kind or not at all.
// A read replica (src/db/read-replicas.ts) reads through a view of the caches (view(name)): its own cache of
// each kind, since a replica's catalogue and rows may be an import behind the primary's, except the kinds made
// `byVersion`, whose entries are tagged with the import version they were read at and so serve every copy
// of the database (the hot index, the encoded tiles). The context's doors reach every view.
import type { Config } from './config.ts';

/** What a cache may be told. A cache answers the doors its data depends on and ignores the others (one that answers none is dropped only with its context). */
export interface CacheDoors {
  placeChanged?(placeId: string): void;
  rulesReloaded?(): void;
}

/** A kind of cache: its name, and how one is made for a context from the context's configuration. */
export interface CacheKind<T extends object> {
  readonly name: string;
  readonly make: (config: Config) => T;
  /** Its entries are tagged with the import version they hold: one cache serves the primary and every replica. */
  readonly byVersion: boolean;
}

export function cacheKind<T extends object>(name: string, make: (config: Config) => T, opts: { byVersion?: boolean } = {}): CacheKind<T> {
  return Object.freeze({ name, make, byVersion: opts.byVersion ?? false });
}

export class Caches {
  readonly #made = new Map<CacheKind<object>, CacheDoors>();
  readonly #config: Config;
  /** The caches this one is a view of (a replica's), if any. */
  readonly #parent: Caches | undefined;
  readonly #views = new Map<string, Caches>();

  constructor(config: Config, parent?: Caches) {
    this.#config = config;
    this.#parent = parent;
  }

  /** The caches a read replica reads through (made on first use): its own of each kind but the byVersion kinds, which are these. */
  view(name: string): Caches {
    if (this.#parent) return this.#parent.view(name);
    let v = this.#views.get(name);
    if (!v) this.#views.set(name, (v = new Caches(this.#config, this)));
    return v;
  }

  /** This context's cache of that kind, made on first use. */
  of<T extends object>(kind: CacheKind<T>): T {
    if (this.#parent && kind.byVersion) return this.#parent.of(kind);
    let c = this.#made.get(kind);
    if (c === undefined) {
      c = kind.make(this.#config) as CacheDoors;
      this.#made.set(kind, c);
    }
    return c as T;
  }

  /** A place's data was rewritten: every cache of this context drops what it holds of it. */
  placeChanged(placeId: string): void {
    for (const c of this.#made.values()) c.placeChanged?.(placeId);
    for (const v of this.#views.values()) v.placeChanged(placeId);
  }

  /** The rules files and what they cite may have changed: every cache built on them drops it. */
  rulesReloaded(): void {
    for (const c of this.#made.values()) c.rulesReloaded?.();
    for (const v of this.#views.values()) v.rulesReloaded();
  }

  /** The kinds made so far, by name (tests). */
  names(): string[] {
    return [...this.#made.keys()].map((k) => k.name);
  }
}
