-- Background work that one instance should do for all (the first start's accuracy audit of the places
-- just imported): an instance claims the job's row with a lease, renews it while it works and deletes
-- it when done or stopped; the others see the live claim and skip the job. A claim whose lease passed
-- (its instance died) can be taken again. src/ops/background-claims.ts.
CREATE TABLE IF NOT EXISTS background_claims (
  job text PRIMARY KEY,
  holder text NOT NULL,
  claimed_at timestamptz NOT NULL,
  lease_until timestamptz NOT NULL
);
