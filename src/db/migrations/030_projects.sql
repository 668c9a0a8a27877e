-- Projects and their receipts (issue 9, docs/projects.md). A project belongs to one account; every
-- query filters by owner_account_id, so one account never sees, matches or touches another's.
-- inputs_version is bumped by every change to the project's lots, so an analysis can tell that its
-- inputs moved since it ran (agentStatus current + inputsChanged).
CREATE TABLE projects (
  project_id uuid PRIMARY KEY,
  owner_account_id text NOT NULL,
  name text NOT NULL,
  address text,
  lat double precision,
  lng double precision,
  place_id text,
  lifecycle_status text NOT NULL,
  external_ref text,
  inputs_version integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX projects_owner_name ON projects (owner_account_id, lower(name));
CREATE UNIQUE INDEX projects_owner_external_ref ON projects (owner_account_id, external_ref) WHERE external_ref IS NOT NULL;

-- A lot as it was when attached: area, districts, facts, geometry and the front lot line are copied
-- here, so a later import does not silently rewrite a saved analysis.
CREATE TABLE project_lots (
  project_id uuid NOT NULL REFERENCES projects (project_id),
  place_id text NOT NULL,
  parcel_ext_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('build', 'context')),
  snapshot jsonb NOT NULL,
  attached_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, place_id, parcel_ext_id)
);

CREATE TABLE project_references (
  project_id uuid NOT NULL REFERENCES projects (project_id),
  section_uuid uuid NOT NULL,
  section jsonb NOT NULL,
  attached_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, section_uuid)
);

-- Every write returns and stores a receipt. prior holds the fields an updateProject write replaced
-- (what an undo restores); after holds what it wrote (what an undo checks is still in place).
-- An idempotency key is unique per account; args_digest tells a retry from a different call.
CREATE TABLE receipts (
  receipt_id uuid PRIMARY KEY,
  seq bigserial NOT NULL,                 -- insertion order (times can tie under a test clock)
  account_id text NOT NULL,
  tool text NOT NULL,
  action text NOT NULL,
  project_id uuid,
  created_at timestamptz NOT NULL,
  changes jsonb NOT NULL,
  prior jsonb,
  after jsonb,
  undoes uuid,
  idempotency_key text,
  args_digest text,
  result jsonb
);
CREATE INDEX receipts_project ON receipts (project_id, seq);
CREATE UNIQUE INDEX receipts_idempotency ON receipts (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- The analysis queue: a plain table claimed with FOR UPDATE SKIP LOCKED (README, docs/projects.md).
-- status: queued -> running -> succeeded | failed; a running row whose lease passed is claimed again
-- until attempts reaches max_attempts. result is the canonical JSON text (byte-identical for the
-- same inputs_digest), kept for every run: the history.
CREATE TABLE analysis_runs (
  run_id uuid PRIMARY KEY,
  seq bigserial NOT NULL,                 -- enqueue order: claim order and the latest run
  project_id uuid NOT NULL REFERENCES projects (project_id),
  account_id text NOT NULL,
  receipt_id uuid NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  lease_until timestamptz,
  worker_id text,
  inputs_version integer,
  inputs_digest text,
  result text,
  error text,
  enqueued_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX analysis_runs_claim ON analysis_runs (status, seq) WHERE status IN ('queued', 'running');
CREATE INDEX analysis_runs_project ON analysis_runs (project_id, seq);
