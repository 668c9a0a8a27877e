-- Viewing the feedback reports is a staff action too (they hold what people wrote, scrubbed): recorded
-- with who and when, like a grant or a review (issue 29).
ALTER TABLE staff_actions DROP CONSTRAINT IF EXISTS staff_actions_action_check;
ALTER TABLE staff_actions ADD CONSTRAINT staff_actions_action_check CHECK (action IN ('credit_grant', 'feedback_review', 'key_revoke', 'feedback_view'));
