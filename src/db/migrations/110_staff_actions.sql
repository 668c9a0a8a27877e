-- Every staff action (credit grant, feedback review, key revocation for abuse), whoever took it and
-- however (web page, the staff API the CLI calls, or the CLI on the database directly): who, when,
-- what, why. Append-only, like the credit ledger. Feedback gains its review state.
CREATE TABLE IF NOT EXISTS staff_actions (
  action_id uuid PRIMARY KEY,
  actor text NOT NULL,                    -- the staff account's e-mail, or cli:<os user>@<host> on the database directly
  via text NOT NULL CHECK (via IN ('web', 'api', 'cli')),
  action text NOT NULL CHECK (action IN ('credit_grant', 'feedback_review', 'key_revoke')),
  subject text NOT NULL,                  -- the account e-mail, feedback submission id or key id acted on
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS staff_actions_created ON staff_actions (created_at DESC, action_id);
CREATE OR REPLACE FUNCTION staff_actions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'staff_actions is append-only'; END $$;
DROP TRIGGER IF EXISTS staff_actions_no_change ON staff_actions;
CREATE TRIGGER staff_actions_no_change BEFORE UPDATE OR DELETE ON staff_actions FOR EACH ROW EXECUTE FUNCTION staff_actions_append_only();

ALTER TABLE service_feedback ADD COLUMN IF NOT EXISTS reviewed_at timestamptz;
ALTER TABLE service_feedback ADD COLUMN IF NOT EXISTS reviewed_by text;
ALTER TABLE service_feedback ADD COLUMN IF NOT EXISTS review_note text;
