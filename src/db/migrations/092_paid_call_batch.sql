-- A paid call whose snapshot is already known (served from the snapshot cache) needs the key check,
-- the per-key count and the spend: one function does all three for a batch of calls (see
-- src/billing/api-keys.ts paidCheckBatch), so a batch costs one statement instead of two. Per call:
-- the key is looked up (or, for a user token, the account and subject are given); an unrevoked key's
-- or a user's request is counted in its window (one upsert row per subject, in subject order, as
-- api_key_check_batch does); a counted request within p_limit that wants a charge is charged in
-- arrival order per account while the balance covers it (rows locked FOR UPDATE in account order
-- after the counters, so two instances lock in one order); one ledger entry per charge. Answers:
-- o_number is the request's number in its window (NULL: not counted), o_charged, and o_balance, the
-- balance as if the batch's charges had run one by one (a charged call sees the balance after its
-- own charge; any other call the balance after the batch). CHECK (balance >= 0) stays the last guard.
CREATE OR REPLACE FUNCTION api_paid_call_batch(p_hashes text[], p_subjects text[], p_accounts text[], p_charge boolean[], p_refs text[],
  p_bucket text, p_window timestamptz, p_limit integer, p_cost bigint, p_now timestamptz)
RETURNS TABLE (o_ord integer, o_key_id text, o_account_id text, o_revoked boolean, o_number integer, o_charged boolean, o_balance bigint, o_entries integer)
LANGUAGE plpgsql AS $fn$
BEGIN
  RETURN QUERY
  WITH req AS (SELECT * FROM unnest(p_hashes, p_subjects, p_accounts, p_charge, p_refs) WITH ORDINALITY AS r(key_hash, subject, account_id, charge, reference, ord)),
  who AS (
    SELECT req.ord, req.charge, req.reference, a.key_id, COALESCE(a.account_id, req.account_id) AS account_id, COALESCE(a.revoked_at IS NOT NULL, false) AS revoked,
      CASE WHEN req.key_hash IS NULL THEN req.subject WHEN a.revoked_at IS NULL THEN 'key:' || a.key_id END AS subject
    FROM req LEFT JOIN api_keys a ON a.key_hash = req.key_hash
    WHERE req.key_hash IS NULL OR a.key_id IS NOT NULL),
  n AS (SELECT who.subject, count(*)::int AS n FROM who WHERE who.subject IS NOT NULL GROUP BY who.subject),
  counted AS (
    INSERT INTO rate_limit_windows AS w (bucket, subject, window_start, hits)
    SELECT p_bucket, n.subject, p_window, n.n FROM n ORDER BY n.subject
    ON CONFLICT (bucket, subject, window_start) DO UPDATE SET hits = w.hits + EXCLUDED.hits
    RETURNING w.subject, w.hits),
  numbered AS (
    SELECT who.ord, who.account_id, who.key_id, who.reference, who.charge,
      (counted.hits - n.n + row_number() OVER (PARTITION BY who.subject ORDER BY who.ord))::int AS number
    FROM who JOIN n ON n.subject = who.subject JOIN counted ON counted.subject = who.subject),
  wants AS (
    SELECT numbered.ord, numbered.account_id, numbered.key_id, numbered.reference,
      row_number() OVER (PARTITION BY numbered.account_id ORDER BY numbered.ord) AS rank
    FROM numbered WHERE numbered.charge AND numbered.number <= p_limit),
  locked AS (
    SELECT c.account_id, c.balance FROM credit_accounts c
    WHERE c.account_id IN (SELECT wants.account_id FROM wants) ORDER BY c.account_id FOR UPDATE),
  cur AS (
    SELECT locked.account_id, locked.balance, LEAST(w.n, locked.balance / p_cost) AS take
    FROM locked JOIN (SELECT wants.account_id, count(*) AS n FROM wants GROUP BY wants.account_id) w ON w.account_id = locked.account_id),
  spent AS (
    UPDATE credit_accounts c SET balance = c.balance - p_cost * cur.take, updated_at = p_now
    FROM cur WHERE c.account_id = cur.account_id AND cur.take > 0 RETURNING c.account_id, c.balance, cur.take),
  entries AS (
    INSERT INTO credit_ledger (account_id, kind, amount, reference, key_id, created_at)
    SELECT wants.account_id, 'spend', -p_cost, wants.reference, wants.key_id, p_now
    FROM wants JOIN spent ON spent.account_id = wants.account_id WHERE wants.rank <= spent.take ORDER BY wants.ord
    RETURNING 1)
  SELECT req.ord::int, who.key_id, who.account_id, who.revoked, numbered.number,
    COALESCE(wants.rank <= spent.take, false),
    CASE WHEN wants.rank <= spent.take THEN spent.balance + p_cost * (spent.take - wants.rank)
      ELSE COALESCE(spent.balance, cur.balance, (SELECT c.balance FROM credit_accounts c WHERE c.account_id = who.account_id), 0) END,
    (SELECT count(*)::int FROM entries)
  FROM req LEFT JOIN who ON who.ord = req.ord LEFT JOIN numbered ON numbered.ord = req.ord LEFT JOIN wants ON wants.ord = req.ord
    LEFT JOIN spent ON spent.account_id = who.account_id LEFT JOIN cur ON cur.account_id = who.account_id
  ORDER BY req.ord; END
$fn$;
