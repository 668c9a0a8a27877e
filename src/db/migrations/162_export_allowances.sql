-- An account's monthly allowance of project report exports (the records.exports meter) when staff set
-- one other than the default (25, REPORT_EXPORTS_PER_MONTH); issue 47. Set and changed by staff on the
-- running service, each change recorded in staff_actions (export_allowance, from and to).
CREATE TABLE IF NOT EXISTS account_export_allowances (
  account_id text PRIMARY KEY REFERENCES accounts (account_id) ON DELETE CASCADE,
  monthly_exports integer NOT NULL CHECK (monthly_exports BETWEEN 0 AND 10000),
  set_at timestamptz NOT NULL,
  set_by text NOT NULL
);
