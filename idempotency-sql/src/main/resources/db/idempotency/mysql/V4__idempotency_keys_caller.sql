-- Makes the authenticated caller part of an Idempotency-Key record's identity (MySQL 8.0.19+),
-- for dev.idempotency:idempotency-jdbc: the column caller (the first 16 bytes of the SHA-256 of
-- the caller's name; empty for an anonymous request) and the primary key
-- (key, tenant_id, caller, method, path). A migration of its own, so that V1's Flyway checksum
-- stays what it was. Rows written before it get the empty caller: they become anonymous records.
-- Not run against a MySQL server by this project's tests: it is the MariaDB file without
-- ADD COLUMN IF NOT EXISTS, which MySQL lacks.
--
-- Binary, because InnoDB caps a primary key at 3072 bytes: the other parts take up to 3051
-- (key 255 + tenant_id 191 x 4 + method 32 + path 500 x 4), the caller's 16 bytes make 3067.
-- InnoDB keeps the rows in primary-key order, so replacing the key rebuilds the whole table.
-- MySQL does that online (reads and writes go on), but it takes the table's metadata lock
-- exclusively at its start and end, which waits for transactions open on the table and holds up
-- every statement on it meanwhile; run it at a quiet moment. Runs once: a second run fails on
-- the existing column.

ALTER TABLE idempotency_keys
    ADD COLUMN caller VARBINARY(16) NOT NULL DEFAULT ''
        COMMENT 'The authenticated caller: first 16 bytes of the SHA-256 of its name; empty for an anonymous request',
    DROP PRIMARY KEY,
    ADD PRIMARY KEY (`key`, tenant_id, caller, method, path),
    COMMENT = 'Idempotency-Key records: one per (key, tenant, caller, method, path)';
