-- Makes the authenticated caller part of an Idempotency-Key record's identity (PostgreSQL 12+),
-- for dev.idempotency:idempotency-jdbc: the column caller (the first 16 bytes of the SHA-256 of
-- the caller's name; empty for an anonymous request) and the primary key
-- (key, tenant_id, caller, method, path). A migration of its own, so that V1's Flyway checksum
-- stays what it was. Rows written before it get the empty caller: they become anonymous records.
-- Row-level security (postgresql-rls/V2) is untouched: its policy reads tenant_id only.
--
-- Adding the column with a constant default changes only the catalog. Replacing the primary key
-- builds its index anew and holds an ACCESS EXCLUSIVE lock on the table for that time: the
-- store's statements wait meanwhile (and answer "busy" past their statement timeout), so run it
-- at a quiet moment. May run again (it then rebuilds the primary key again).

ALTER TABLE idempotency_keys
    ADD COLUMN IF NOT EXISTS caller BYTEA NOT NULL DEFAULT ''::bytea,
    DROP CONSTRAINT idempotency_keys_pkey,
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (key, tenant_id, caller, method, path);

COMMENT ON TABLE idempotency_keys IS 'Idempotency-Key records: one per (key, tenant, caller, method, path)';
COMMENT ON COLUMN idempotency_keys.caller IS 'The authenticated caller: first 16 bytes of the SHA-256 of its name; empty for an anonymous request';
