-- The paid REST call's two statements (see src/billing/api-keys.ts checkBatch and
-- src/billing/credit-ledger.ts spendBatch) as PL/pgSQL functions, so each plan is prepared once per
-- session and reused: on PGlite, planning these CTEs cost more than running them. The statements are
-- the same as when sent as text; the callers describe what they guarantee. The counters of a batch
-- are upserted in subject order, so two instances' batches lock shared rows in one order (no deadlock).
CREATE OR REPLACE FUNCTION api_key_check_batch(p_hashes text[], p_subjects text[], p_bucket text, p_window timestamptz)
RETURNS TABLE (o_ord integer, o_key_id text, o_account_id text, o_revoked boolean, o_subject text, o_hits integer, o_n integer)
LANGUAGE plpgsql AS $fn$
BEGIN
  RETURN QUERY
  WITH req AS (SELECT * FROM unnest(p_hashes, p_subjects) WITH ORDINALITY AS r(key_hash, subject, ord)),
  k AS (SELECT r.ord, a.key_id, a.account_id, a.revoked_at IS NOT NULL AS revoked FROM req r JOIN api_keys a ON a.key_hash = r.key_hash),
  s AS (SELECT k.ord, 'key:' || k.key_id AS subject FROM k WHERE NOT k.revoked UNION ALL SELECT req.ord, req.subject FROM req WHERE req.subject IS NOT NULL),
  n AS (SELECT s.subject, count(*)::int AS n FROM s GROUP BY s.subject),
  counted AS (
    INSERT INTO rate_limit_windows AS w (bucket, subject, window_start, hits)
    SELECT p_bucket, n.subject, p_window, n.n FROM n ORDER BY n.subject
    ON CONFLICT (bucket, subject, window_start) DO UPDATE SET hits = w.hits + EXCLUDED.hits
    RETURNING w.subject, w.hits)
  SELECT req.ord::int, k.key_id, k.account_id, k.revoked, s.subject, counted.hits, n.n
  FROM req LEFT JOIN k ON k.ord = req.ord LEFT JOIN s ON s.ord = req.ord
    LEFT JOIN counted ON counted.subject = s.subject LEFT JOIN n ON n.subject = s.subject
  ORDER BY req.ord; END
$fn$;
CREATE OR REPLACE FUNCTION credit_spend_batch(p_account text, p_cost bigint, p_n integer, p_now timestamptz, p_refs text[], p_keys text[])
RETURNS TABLE (o_before bigint, o_balance bigint, o_taken integer, o_entries integer)
LANGUAGE plpgsql AS $fn$
BEGIN
  RETURN QUERY
  WITH cur AS (
    SELECT c.balance, LEAST(p_n::bigint, c.balance / p_cost) AS take FROM credit_accounts c WHERE c.account_id = p_account FOR UPDATE),
  spent AS (
    UPDATE credit_accounts c SET balance = c.balance - p_cost * cur.take, updated_at = p_now
    FROM cur WHERE c.account_id = p_account AND cur.take > 0 RETURNING c.balance, cur.take),
  entries AS (
    INSERT INTO credit_ledger (account_id, kind, amount, reference, key_id, created_at)
    SELECT p_account, 'spend', -p_cost, r.reference, r.key_id, p_now
    FROM spent, unnest(p_refs, p_keys) WITH ORDINALITY AS r(reference, key_id, ord)
    WHERE r.ord <= spent.take
    RETURNING entry_id)
  SELECT cur.balance, spent.balance, spent.take::int, (SELECT count(*)::int FROM entries)
  FROM (SELECT 1) one LEFT JOIN cur ON true LEFT JOIN spent ON true; END
$fn$;
