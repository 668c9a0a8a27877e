// Group commit for the paid call's database work. Under load, many requests wait on the database at
// the same moment (PGlite runs one statement at a time; a PostgreSQL round trip costs more than the
// work in it), so instead of one statement per request a queue gathers them and one statement serves
// them all: while a batch runs, arrivals wait for the next batch. A batch is taken in setImmediate, after
// the event loop has read every request that arrived meanwhile (PGlite runs a statement synchronously on
// this thread, so requests pile up unread in the sockets while it runs; a microtask would take them one
// by one). A lone request waits one event-loop turn. Each request still gets its own answer, decided inside the statement
// (the database stays the only truth: nothing is decided from memory), and no answer is given before
// its statement has committed. A failed batch fails each of its requests.

export interface Pending<Req, Res> {
  req: Req;
  resolve: (r: Res) => void;
  reject: (e: unknown) => void;
}

export class GroupCommit<Req, Res> {
  private queue: Pending<Req, Res>[] = [];
  private running = false;

  /** `run` answers a batch in order: one result per request. */
  constructor(
    private readonly run: (batch: Req[]) => Promise<Res[]>,
    private readonly maxBatch = 256,
  ) {}

  submit(req: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ req, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const out = await this.run(batch.map((p) => p.req));
        if (out.length !== batch.length) throw new Error(`group commit: ${out.length} answers for ${batch.length} requests`);
        batch.forEach((p, i) => p.resolve(out[i]!));
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
      // Let the event loop read what arrived during the statement before taking the next batch.
      await new Promise<void>((r) => setImmediate(r));
    }
    this.running = false;
  }
}

/** One queue per database object and name (two services on one Db share it; two Dbs never do). */
// biome-ignore lint/suspicious/noExplicitAny: one map holds queues of every request and answer type; each queue is typed where it is made
const queues = new WeakMap<object, Map<string, GroupCommit<any, any>>>();

export function groupCommitFor<Req, Res>(db: object, name: string, make: () => GroupCommit<Req, Res>): GroupCommit<Req, Res> {
  let byName = queues.get(db);
  if (!byName) queues.set(db, (byName = new Map()));
  let q = byName.get(name);
  if (!q) {
    q = make();
    byName.set(name, q);
    if (byName.size > 10_000) byName.delete(byName.keys().next().value!); // idle per-account queues
  }
  return q as GroupCommit<Req, Res>;
}
