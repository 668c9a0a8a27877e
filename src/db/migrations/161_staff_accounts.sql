-- Staff are accounts (issue 45): staff rights belong to verified accounts by id, granted and removed by
-- `siteline staff add|remove` on the running service (recorded). SITELINE_STAFF_EMAILS at most seeds
-- them: a listed address becomes staff once, when an account has verified it, and never again
-- (staff_seeded_emails), so removing someone sticks and an address a staff member moved away from
-- gives nobody staff rights. The staff action log keeps the acting account's id beside its address at
-- the time (NULL for the records before this migration, which kept only the address, and for the
-- operator and the CLI on the database, which are no account). New doors: the machine's operator
-- ('operator') and the configuration's seeding ('config'); new actions: staff_add, staff_remove and
-- export_allowance (issue 47).
CREATE TABLE IF NOT EXISTS staff_members (
  account_id text PRIMARY KEY REFERENCES accounts (account_id) ON DELETE CASCADE,
  added_at timestamptz NOT NULL,
  added_by text NOT NULL
);
CREATE TABLE IF NOT EXISTS staff_seeded_emails (
  email text PRIMARY KEY,
  account_id text NOT NULL,
  seeded_at timestamptz NOT NULL
);
ALTER TABLE staff_actions ADD COLUMN IF NOT EXISTS actor_account_id text;
ALTER TABLE staff_actions DROP CONSTRAINT IF EXISTS staff_actions_via_check;
ALTER TABLE staff_actions ADD CONSTRAINT staff_actions_via_check CHECK (via IN ('web', 'api', 'cli', 'operator', 'config'));
ALTER TABLE staff_actions DROP CONSTRAINT IF EXISTS staff_actions_action_check;
ALTER TABLE staff_actions ADD CONSTRAINT staff_actions_action_check CHECK (action IN ('credit_grant', 'feedback_review', 'key_revoke', 'feedback_view', 'staff_add', 'staff_remove', 'export_allowance'));
