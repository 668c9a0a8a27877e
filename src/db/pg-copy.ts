// COPY ... FROM STDIN on a node-postgres client, for bulk loads on PostgreSQL (the importer's rows):
// one statement streams a batch's COPY text lines, where INSERT ... SELECT FROM unnest made the driver
// escape every value into array literals and the server parse them back (the 1M-parcel synthetic
// import: 99 s by INSERT against 15.5 s for a raw COPY of the same rows, bench/raw-copy.ts). A
// minimal "submittable" query of the driver (what pg-copy-streams does, for one in-memory buffer):
// the driver calls submit(), then handleCopyInResponse when the server is ready for the data, then
// handleCommandComplete / handleError, and handleReadyForQuery last.
import type pg from 'pg';

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

class CopyFromBuffer {
  private rowCount = 0;
  constructor(
    readonly text: string,
    private readonly data: Buffer,
    private readonly done: (err: Error | undefined, rows: number) => void,
  ) {}
  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: CopyConnection): void {
    // In chunks: one protocol message holds at most 1 GB, and smaller ones keep the socket's buffers small.
    const CHUNK = 1 << 20;
    for (let at = 0; at < this.data.length; at += CHUNK) connection.sendCopyFromChunk(this.data.subarray(at, Math.min(at + CHUNK, this.data.length)));
    connection.endCopyFrom();
  }
  handleCommandComplete(msg: { text?: string }): void {
    const m = /^COPY (\d+)/.exec(msg.text ?? '');
    if (m) this.rowCount = Number(m[1]);
  }
  // The driver drops its active query before an error reaches it, so no handleReadyForQuery follows one:
  // settle at once (the driver holds the next query until the server is ready again).
  handleError(err: Error): void {
    this.settle(err);
  }
  handleReadyForQuery(): void {
    this.settle(undefined);
  }
  private settled = false;
  private settle(err: Error | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.done(err, this.rowCount);
  }
  // Not sent for COPY FROM; present because the driver may call them on any active query.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** Runs `COPY table (columns) FROM STDIN` with `data` (COPY text lines, each ending in a newline) on one client. */
export function copyFromBuffer(client: pg.PoolClient | pg.Client, sql: string, data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const q = new CopyFromBuffer(sql, data, (err, rows) => (err ? reject(err) : resolve(rows)));
    (client as unknown as { query(q: unknown): unknown }).query(q);
  });
}
