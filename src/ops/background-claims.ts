// One instance does a background job for all: a row in background_claims (migration 170) claimed with
// a lease in the database's own clock, renewed while the job works, deleted when it ends or is stopped.
// Another instance that finds a live claim skips the job; a claim whose lease passed (its instance
// died) is taken over. Plain SQL, so it works the same on PGlite (one process) and PostgreSQL.
import type { Queryable } from '../db/database.ts';

export interface Claim {
  /** Whether this holder has the job now. */
  readonly claimed: boolean;
  /** Who holds it when this holder does not. */
  readonly heldBy: string | undefined;
  /** Renews the lease while the job works (every third of the lease); stops with release(). */
  release(): Promise<void>;
}

export async function claimJob(db: Queryable, job: string, holder: string, leaseMs: number, log: (err: unknown) => void = () => undefined): Promise<Claim> {
  const [row] = await db.query<{ holder: string }>(
    `INSERT INTO background_claims (job, holder, claimed_at, lease_until) VALUES ($1, $2, now(), now() + ($3::int * interval '1 millisecond'))
     ON CONFLICT (job) DO UPDATE SET holder = EXCLUDED.holder, claimed_at = EXCLUDED.claimed_at, lease_until = EXCLUDED.lease_until
       WHERE background_claims.lease_until < now() OR background_claims.holder = EXCLUDED.holder
     RETURNING holder`,
    [job, holder, leaseMs],
  );
  if (!row) {
    const [other] = await db.query<{ holder: string }>('SELECT holder FROM background_claims WHERE job = $1', [job]);
    return { claimed: false, heldBy: other?.holder, release: async () => undefined };
  }
  const renew = setInterval(
    () => {
      db.query(`UPDATE background_claims SET lease_until = now() + ($3::int * interval '1 millisecond') WHERE job = $1 AND holder = $2`, [
        job,
        holder,
        leaseMs,
      ]).catch(log);
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  return {
    claimed: true,
    heldBy: holder,
    async release() {
      clearInterval(renew);
      await db.query('DELETE FROM background_claims WHERE job = $1 AND holder = $2', [job, holder]);
    },
  };
}
