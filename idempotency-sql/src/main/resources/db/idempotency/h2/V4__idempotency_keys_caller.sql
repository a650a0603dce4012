-- Makes the authenticated caller part of an Idempotency-Key record's identity (H2 2.x), for
-- dev.idempotency:idempotency-jdbc: the column caller (the first 16 bytes of the SHA-256 of the
-- caller's name; empty for an anonymous request) and the primary key
-- (key, tenant_id, caller, method, path). A migration of its own, so that V1's Flyway checksum
-- stays what it was. Rows written before it get the empty caller: they become anonymous records.
--
-- Replacing the primary key builds its index anew and locks the table for that time. May run
-- again, for example after V1 in a connection's INIT=RUNSCRIPT: it then changes nothing, since the
-- new key has a name of its own (idempotency_keys_caller_pkey) and V1's key is gone.

ALTER TABLE "idempotency_keys" ADD COLUMN IF NOT EXISTS "caller" VARBINARY(16) DEFAULT X'' NOT NULL;

ALTER TABLE "idempotency_keys" DROP CONSTRAINT IF EXISTS "idempotency_keys_pkey";

ALTER TABLE "idempotency_keys" ADD CONSTRAINT IF NOT EXISTS "idempotency_keys_caller_pkey"
    PRIMARY KEY ("key", "tenant_id", "caller", "method", "path");
