-- Only purchases and grants from a payment provider carry an event id, yet every spend entry was
-- written into the unique index on event_id too (as a NULL). A partial unique index holds only the
-- entries that have one: uniqueness per event id is unchanged (addCredit names the index's predicate
-- in its ON CONFLICT), and a spend maintains two indexes instead of three.
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_event_id_key;
CREATE UNIQUE INDEX credit_ledger_event_id ON credit_ledger (event_id) WHERE event_id IS NOT NULL;
