// Typed-array columns and chunked reads shared by the hot stores (the place index's address tables,
// the lot store's lot columns): a place's rows are held as columns, not as row objects.
import type { Queryable } from '../db/database.ts';

export type TypedColumn = Float64Array | Int32Array | Uint8Array | Int8Array;

/** A column copied into a new one of the same type and `length` elements (the loaders grow in chunks). */
export function grown<T extends TypedColumn>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a);
  return b;
}

/** Rows per chunk of a load. */
export const CHUNK = 10_000;

/** Code-unit order (the C collation): the hot stores' one order for ids and keys. */
export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A typed array that grows as values are pushed. */
export class Grow<T extends Int32Array | Float64Array> {
  private a: T;
  length = 0;
  constructor(
    private readonly Kind: new (n: number) => T,
    capacity: number,
  ) {
    this.a = new Kind(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.length === this.a.length) {
      const b = new this.Kind(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length++] = v;
  }
  at(i: number): number {
    return this.a[i]!;
  }
  /** The values pushed, as a column of exactly that length (a copy: the spare capacity is let go). */
  view(): T {
    return this.a.slice(0, this.length) as T;
  }
}

export class Strings {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.ids.set(s, i);
    }
    return i;
  }
  done(): string[] {
    this.ids.clear();
    return this.list;
  }
}

/**
 * One chunk of rows as one json text (json_agg): a driver decodes a result row by row, about ten
 * times slower than JSON.parse of the same rows in one value (measured on PGlite).
 */
export async function chunkOf<T>(db: Queryable, sql: string, params: unknown[], orderBy: string): Promise<T[]> {
  const r = await db.query<{ j: string | null }>(`SELECT json_agg(s ORDER BY s.${orderBy})::text AS j FROM (${sql}) s`, params);
  return r[0]?.j ? (JSON.parse(r[0].j) as T[]) : [];
}

/** Approximate heap bytes of a string (V8: a header of 16 bytes, one byte a character when all are Latin-1, else two; 8-byte aligned). */
export function stringBytes(s: string): number {
  // eslint-disable-next-line no-control-regex
  const per = /[^\u0000-\u00ff]/.test(s) ? 2 : 1;
  return 16 + Math.ceil((s.length * per) / 8) * 8;
}

/** Approximate heap bytes of an array of strings (the array's slots and each string). */
export function stringsBytes(list: readonly (string | null | undefined)[]): number {
  let n = 16 + list.length * 8;
  for (const s of list) if (typeof s === 'string') n += stringBytes(s);
  return n;
}

/** Approximate heap bytes of a Map or Set (V8's ordered hash table: about 3 slots an entry, load factor 2). */
export function tableBytes(size: number): number {
  return 64 + size * 40;
}

/**
 * Approximate heap bytes of a parsed JSON value (objects: a header and a slot a property; arrays: a
 * header and a slot an element; numbers outside small integers boxed): an estimate, checked against
 * process.memoryUsage() deltas by the bench (bench/country.ts).
 */
export function valueBytes(v: unknown): number {
  if (v === null || v === undefined || typeof v === 'boolean') return 0;
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 30 ? 0 : 16;
  if (typeof v === 'string') return stringBytes(v);
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'number')) return 32 + v.length * 8; // a packed double array
    let n = 32 + v.length * 8;
    for (const x of v) n += valueBytes(x);
    return n;
  }
  if (typeof v === 'object') {
    let n = 24;
    for (const x of Object.values(v as Record<string, unknown>)) n += 8 + valueBytes(x);
    return n;
  }
  return 8;
}
