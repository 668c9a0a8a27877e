// The place tables partitioned by place (migration 250; docs/scaling.md, "Place tables partitioned by
// place"). Every partitioned table is PARTITION BY LIST (place_id) with the same layout: partition
// <table>_p<part> of every table holds the same places, a large place alone and small towns in groups
// (the grouping rule: partitionFor below). A load never writes into a live partition: it makes new
// tables beside the live ones (a group's other towns copied in), loads and indexes them, and swaps
// them in in one transaction (DETACH the old, ATTACH the new, DROP the old): readers see the old rows
// or the new ones, never a half-loaded place, and the neighbours' heaps are rewritten whole, never
// left with a re-import's dead rows. The same on PostgreSQL and embedded PGlite (PostgreSQL 17).
import type { Db, Queryable } from './database.ts';

/** The tables partitioned by place, in the order a swap locks them. */
export const PARTITIONED_TABLES = ['addresses', 'parcels', 'zones', 'street_segments', 'lot_locations'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** A place of at least this many lots gets partitions of its own; a smaller one joins a group. */
export const OWN_PARTITION_MIN_LOTS = 50_000;
/** A group takes small towns until it holds this many lots (a re-import of one rewrites at most about this many neighbours' rows). */
export const GROUP_MAX_LOTS = 100_000;

/** The grouping rule's two sizes (a test lays a small database out with smaller ones). */
export interface LayoutRule {
  ownMinLots: number;
  groupMaxLots: number;
}
const DEFAULT_RULE: LayoutRule = { ownMinLots: OWN_PARTITION_MIN_LOTS, groupMaxLots: GROUP_MAX_LOTS };

/** How long a swap waits for its locks before it lets the readers through and tries again (below deadlock_timeout, 1 s). */
const SWAP_LOCK_TIMEOUT_MS = 200;
const SWAP_ATTEMPTS = 50;

/** A place's partition: its number, whether the place is alone in it, and the places it holds. */
interface Partition {
  part: number;
  own: boolean;
  places: string[];
}

/** A load in progress: the new tables (not yet attached) the place's rows go into, and what they replace. */
export interface PlaceLoad {
  placeId: string;
  part: number;
  own: boolean;
  /** Every place the new partition holds (the place, and a group's other towns). */
  places: string[];
  /** Where each table's rows go (the new tables). */
  tables: Record<PartitionedTable, string>;
  /** The partition replaced (null: the place's first load, or its rows were in the default partition). */
  replaces: number | null;
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const tableOf = (table: PartitionedTable, part: number) => `${table}_p${part}`;

/** The partition holding a place, with the places it holds (null: none yet). */
async function currentPartition(q: Queryable, placeId: string): Promise<Partition | null> {
  const r = await q.query<{ part: number; own: boolean }>('SELECT part, own FROM place_partitions WHERE place_id = $1', [placeId]);
  if (!r[0]) return null;
  const places = await q.query<{ place_id: string }>('SELECT place_id FROM place_partitions WHERE part = $1 ORDER BY place_id', [r[0].part]);
  return { part: Number(r[0].part), own: r[0].own, places: places.map((p) => p.place_id) };
}

/**
 * The grouping rule, at a place's first load with `lots` lots: a place of OWN_PARTITION_MIN_LOTS or more
 * gets partitions of its own; a smaller one joins the fullest group that still has room for it (at most
 * GROUP_MAX_LOTS lots with it), or else starts a group. Later loads keep the place where it is (a town
 * that grows past the threshold stays in its group until the layout is redone: docs/scaling.md).
 * Returns the partition the load replaces (null: a new one) and whether the place is alone in it.
 */
async function partitionFor(q: Queryable, placeId: string, lots: number): Promise<{ replaces: Partition | null; own: boolean }> {
  const now = await currentPartition(q, placeId);
  if (now) return { replaces: now, own: now.own };
  if (lots >= OWN_PARTITION_MIN_LOTS) return { replaces: null, own: true };
  const fits = await q.query<{ part: number }>(
    `SELECT part FROM place_partitions WHERE NOT own GROUP BY part HAVING sum(lots) + $1 <= $2 ORDER BY sum(lots) DESC, part LIMIT 1`,
    [lots, GROUP_MAX_LOTS],
  );
  if (!fits[0]) return { replaces: null, own: false };
  const places = await q.query<{ place_id: string }>('SELECT place_id FROM place_partitions WHERE part = $1 ORDER BY place_id', [fits[0].part]);
  return { replaces: { part: Number(fits[0].part), own: false, places: places.map((p) => p.place_id) }, own: false };
}

/**
 * A table's columns as the parent declares them (type, NOT NULL, default), read from the catalogue:
 * `CREATE TABLE ... (LIKE parent)` would hold a lock on the parent until the import commits, and two
 * imports that each held one while waiting for the swap's exclusive lock would wait on each other.
 */
async function columnsOf(q: Queryable, table: PartitionedTable): Promise<string[]> {
  const rows = await q.query<{ name: string; type: string; notnull: boolean; def: string | null }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull, pg_get_expr(d.adbin, d.adrelid) AS def
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [table],
  );
  return rows.map((r) => `${r.name} ${r.type}${r.notnull ? ' NOT NULL' : ''}${r.def === null ? '' : ` DEFAULT ${r.def}`}`);
}

/** A new table for a partition: the parent's columns, bound by a CHECK to its places (the ATTACH then need not scan it). */
async function createPartitionTable(q: Queryable, table: PartitionedTable, part: number, places: readonly string[]): Promise<void> {
  const target = tableOf(table, part);
  await q.query(
    `CREATE TABLE ${target} (${(await columnsOf(q, table)).join(', ')}, CONSTRAINT ${target}_bound CHECK (place_id = ANY (ARRAY[${places.map(quote).join(', ')}]::text[])))`,
  );
}

/** Each table's indexes (as the parent declares them), as statements for a table of its own. */
async function indexStatements(q: Queryable, table: PartitionedTable, target: string): Promise<string[]> {
  const rows = await q.query<{ name: string; def: string; primary: boolean }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, i.indisprimary AS primary
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1::regclass ORDER BY c.relname`,
    [table],
  );
  const out: string[] = [];
  for (const r of rows) {
    const m = /^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ (USING .*)$/.exec(r.def);
    if (!m) throw new Error(`cannot read the index ${r.name} of ${table}: ${r.def}`);
    const name = `${target}_${r.name.slice(table.length + 1)}`;
    out.push(`CREATE ${m[1] ?? ''}INDEX ${name} ON ${target} ${m[2]}`);
    if (r.primary) out.push(`ALTER TABLE ${target} ADD CONSTRAINT ${name} PRIMARY KEY USING INDEX ${name}`);
  }
  return out;
}

/**
 * Starts a place's load: new tables beside the live ones, with no index yet (built once, after the
 * load: finishPlaceLoad), bound by a CHECK to the places they will hold (so the ATTACH need not scan
 * them), and a group's other towns copied in. Run it in the import's transaction; on PostgreSQL, with
 * the place's import lock held (two imports of one group are serialised by placeLoadLock).
 */
export async function beginPlaceLoad(q: Queryable, placeId: string, lots: number, kind: Db['kind']): Promise<PlaceLoad> {
  // A load that may touch a group (or pick one) holds the layout lock: two towns of one group loaded at
  // once would each copy the other's old rows. A place alone in its partition (or about to be) needs none.
  const now = await q.query<{ own: boolean }>('SELECT own FROM place_partitions WHERE place_id = $1', [placeId]);
  const alone = now[0] ? now[0].own : lots >= OWN_PARTITION_MIN_LOTS;
  if (!alone && kind === 'postgres') await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [PARTITION_LAYOUT_LOCK]);
  const { replaces, own } = await partitionFor(q, placeId, lots);
  const part = Number((await q.query<{ n: number | string }>(`SELECT nextval('place_partition_numbers') AS n`))[0]!.n);
  const neighbours = (replaces?.places ?? []).filter((p) => p !== placeId);
  const places = [placeId, ...neighbours].sort();
  const tables = {} as Record<PartitionedTable, string>;
  for (const table of PARTITIONED_TABLES) {
    const target = tableOf(table, part);
    tables[table] = target;
    await createPartitionTable(q, table, part, places);
    if (replaces && neighbours.length) await q.query(`INSERT INTO ${target} SELECT * FROM ${tableOf(table, replaces.part)} WHERE place_id <> $1`, [placeId]);
  }
  return { placeId, part, own, places, tables, replaces: replaces?.part ?? null };
}

/** Builds the new tables' indexes (once, over the loaded rows) and gathers their statistics. */
export async function finishPlaceLoad(q: Queryable, load: PlaceLoad): Promise<void> {
  for (const table of PARTITIONED_TABLES) {
    for (const stmt of await indexStatements(q, table, load.tables[table])) await q.query(stmt);
  }
  await q.query(`ANALYZE ${PARTITIONED_TABLES.map((t) => load.tables[t]).join(', ')}`);
}

/**
 * Swaps the new tables in for the old, in the caller's transaction: the old partition (the place's,
 * or its group's) detached and dropped, the new one attached, the layout recorded (with each place's
 * lot count and box). A place whose rows were in the default partition (written before it had a
 * partition) has them deleted there. The swap takes the parents' exclusive locks, waiting at most
 * SWAP_LOCK_TIMEOUT_MS for them: a reader that holds one table while it waits for another would
 * otherwise deadlock with it (one of the two aborted); the swap instead lets go and tries again.
 */
export async function swapPlaceLoad(q: Queryable, load: PlaceLoad): Promise<{ lockWaitMs: number; lockedMs: number }> {
  const layout = await layoutOf(q, load);
  const t0 = performance.now();
  await lockForSwap(q);
  const t1 = performance.now();
  // Rows in the default partition (written outside an import: normally none): a neighbour's join it in
  // the new partition; the place's own are replaced by the load. Read here, under the lock: a load that
  // read the default partition would hold it, and a concurrent swap's ATTACH, which locks it, would wait.
  const neighbours = load.places.filter((p) => p !== load.placeId);
  for (const table of PARTITIONED_TABLES) {
    if (neighbours.length) await q.query(`INSERT INTO ${load.tables[table]} SELECT * FROM ${table}_default WHERE place_id = ANY ($1::text[])`, [neighbours]);
    await q.query(`DELETE FROM ${table}_default WHERE place_id = ANY ($1::text[])`, [load.places]);
  }
  await attachLoad(q, load, layout);
  return { lockWaitMs: t1 - t0, lockedMs: performance.now() - t1 };
}

/** The parents' exclusive locks, waiting at most SWAP_LOCK_TIMEOUT_MS at a time (swapPlaceLoad). */
async function lockForSwap(q: Queryable): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await q.query('SAVEPOINT place_partition_swap');
    try {
      await q.query(`SET LOCAL lock_timeout = '${SWAP_LOCK_TIMEOUT_MS}ms'`);
      await q.query(`LOCK TABLE ${PARTITIONED_TABLES.join(', ')} IN ACCESS EXCLUSIVE MODE`);
      await q.query('SET LOCAL lock_timeout = 0');
      break;
    } catch (err) {
      await q.query('ROLLBACK TO SAVEPOINT place_partition_swap');
      if ((err as { code?: string }).code !== '55P03' || attempt >= SWAP_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
  await q.query('RELEASE SAVEPOINT place_partition_swap');
}

/** Under the swap's locks: the replaced partition detached and dropped, the new one attached, the layout recorded. */
async function attachLoad(q: Queryable, load: PlaceLoad, layout: PlaceLayout[]): Promise<void> {
  const values = load.places.map(quote).join(', ');
  for (const table of PARTITIONED_TABLES) {
    if (load.replaces !== null) {
      await q.query(`ALTER TABLE ${table} DETACH PARTITION ${tableOf(table, load.replaces)}`);
      await q.query(`DROP TABLE ${tableOf(table, load.replaces)}`);
    }
    await q.query(`ALTER TABLE ${table} ATTACH PARTITION ${load.tables[table]} FOR VALUES IN (${values})`);
  }
  await recordLayout(q, load, layout);
}

/** A place of a new partition: its lot count and the box of its lots. */
interface PlaceLayout {
  place_id: string;
  lots: number;
  lots_bbox: string | null;
}

/** Each place of a load's new partition with its lots, read before the swap (the new tables are the load's own until then). */
async function layoutOf(q: Queryable, load: PlaceLoad): Promise<PlaceLayout[]> {
  return q.query<PlaceLayout>(
    `SELECT p.place_id, coalesce(l.lots, 0) AS lots, l.lots_bbox::text AS lots_bbox
       FROM unnest($1::text[]) AS p(place_id)
       LEFT JOIN (SELECT place_id, count(*)::int AS lots,
                         box(point(min((bbox[1])[0]), min((bbox[1])[1])), point(max((bbox[0])[0]), max((bbox[0])[1]))) AS lots_bbox
                    FROM ${load.tables.parcels} GROUP BY place_id) l ON l.place_id = p.place_id`,
    [load.places],
  );
}

/** The layout after a swap: each place of the new partition with its lot count and the box of its lots. */
async function recordLayout(q: Queryable, load: PlaceLoad, layout: PlaceLayout[]): Promise<void> {
  await q.query('DELETE FROM place_partitions WHERE place_id = ANY ($1::text[]) OR part = $2', [load.places, load.replaces ?? -1]);
  await q.query(
    `INSERT INTO place_partitions (place_id, part, own, lots, lots_bbox)
     SELECT place_id, $2, $3, lots, lots_bbox::box FROM json_populate_recordset(NULL::place_partitions, $1::json)`,
    [JSON.stringify(layout.map((l) => ({ place_id: l.place_id, lots: Number(l.lots), lots_bbox: l.lots_bbox }))), load.part, load.own],
  );
}

/** The relation holding a place's rows of a table: its partition, or the default partition when it has none. */
export async function placeRelation(q: Queryable, table: PartitionedTable, placeId: string): Promise<string> {
  const r = await q.query<{ part: number }>('SELECT part FROM place_partitions WHERE place_id = $1', [placeId]);
  return r[0] ? tableOf(table, Number(r[0].part)) : `${table}_default`;
}

/** The places whose lots' box holds a box (lotAtPoint asks only their partitions, and the default one). */
export const PLACES_WITH_LOTS_AT_SQL = 'SELECT place_id FROM place_partitions WHERE lots_bbox @> $1::box ORDER BY place_id';

/**
 * Moves every place with rows in the default partitions into partitions: the migration of a database
 * whose tables were one heap each (migration 250 made each its default partition), and rows written
 * since without a partition (a test's direct INSERT). One transaction; a few quick reads when the
 * default partitions are empty. The places with no partition yet are laid out together (the grouping
 * rule, in id order, into new groups), copied out of the default in one pass per partition and attached
 * after the default is emptied (an ATTACH beside a full default partition would scan it every time);
 * a place that already has a partition is reloaded into a new one as an import would.
 */
export async function movePlacesOutOfDefault(db: Db, rule: LayoutRule = DEFAULT_RULE): Promise<string[]> {
  const held = await placesInDefault(db);
  if (held.size === 0) return [];
  return db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [PARTITION_LAYOUT_LOCK]);
    const lots = await placesInDefault(tx);
    const placed = new Set(
      (await tx.query<{ place_id: string }>('SELECT place_id FROM place_partitions WHERE place_id = ANY ($1::text[])', [[...lots.keys()]])).map(
        (r) => r.place_id,
      ),
    );
    const fresh = [...lots.keys()].filter((p) => !placed.has(p)).sort();
    const loads: PlaceLoad[] = [];
    for (const places of layOut(fresh, lots, rule)) {
      const part = Number((await tx.query<{ n: number | string }>(`SELECT nextval('place_partition_numbers') AS n`))[0]!.n);
      const load: PlaceLoad = {
        placeId: places[0]!,
        part,
        own: places.length === 1 && lots.get(places[0]!)! >= rule.ownMinLots,
        places,
        tables: {} as PlaceLoad['tables'],
        replaces: null,
      };
      for (const table of PARTITIONED_TABLES) {
        load.tables[table] = tableOf(table, part);
        await createPartitionTable(tx, table, part, places);
        await tx.query(`INSERT INTO ${load.tables[table]} SELECT * FROM ${table}_default WHERE place_id = ANY ($1::text[])`, [places]);
      }
      await finishPlaceLoad(tx, load);
      loads.push(load);
    }
    const layouts = [];
    for (const load of loads) layouts.push(await layoutOf(tx, load));
    await lockForSwap(tx);
    for (const table of PARTITIONED_TABLES) {
      if (placed.size === 0) await tx.query(`TRUNCATE ${table}_default`);
      else await tx.query(`DELETE FROM ${table}_default WHERE place_id = ANY ($1::text[])`, [fresh]);
    }
    for (const [i, load] of loads.entries()) await attachLoad(tx, load, layouts[i]!);
    for (const placeId of [...placed].sort()) {
      const load = await beginPlaceLoad(tx, placeId, lots.get(placeId)!, db.kind);
      // From the parent: the place's rows in its partition and in the default one.
      for (const table of PARTITIONED_TABLES) await tx.query(`INSERT INTO ${load.tables[table]} SELECT * FROM ${table} WHERE place_id = $1`, [placeId]);
      await finishPlaceLoad(tx, load);
      await swapPlaceLoad(tx, load);
    }
    return [...lots.keys()].sort();
  });
}

/** The grouping rule over places laid out together (in id order): large ones alone, small ones filling groups in turn. */
function layOut(places: string[], lots: Map<string, number>, rule: LayoutRule): string[][] {
  const out: string[][] = [];
  let group: string[] = [];
  let held = 0;
  for (const p of places) {
    const n = lots.get(p) ?? 0;
    if (n >= rule.ownMinLots) {
      out.push([p]);
      continue;
    }
    if (group.length && held + n > rule.groupMaxLots) {
      out.push(group);
      group = [];
      held = 0;
    }
    group.push(p);
    held += n;
  }
  if (group.length) out.push(group);
  return out;
}

/** Places with rows in a default partition, with their lot counts there. */
async function placesInDefault(q: Queryable): Promise<Map<string, number>> {
  const r = await q.query<{ place_id: string; lots: number | string }>(
    `SELECT place_id, sum(lots) AS lots FROM (SELECT place_id, count(*) AS lots FROM parcels_default GROUP BY place_id
      ${PARTITIONED_TABLES.filter((t) => t !== 'parcels')
        .map((t) => `UNION ALL SELECT DISTINCT place_id, 0 FROM ${t}_default`)
        .join(' ')}) s GROUP BY place_id ORDER BY place_id`,
  );
  return new Map(r.map((x) => [x.place_id, Number(x.lots)]));
}

/** The advisory lock that serialises changes to the partition layout (a group's loads, the move out of the default). */
export const PARTITION_LAYOUT_LOCK = 'siteline-partition-layout';
