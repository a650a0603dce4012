-- Idempotency-Key records for dev.idempotency:idempotency-jdbc (MariaDB 10.5+), record format 1.
-- Copy into Flyway or Liquibase as it is, or let JdbcStore.createTableIfMissing() run it in
-- development. Every statement may run again.
--
-- Binary, no-pad collations: keys, tenants and paths compare byte for byte ('Abc' <> 'abc',
-- 'a' <> 'a '). DATETIME(6) holds UTC written by the store (TIMESTAMP would end in 2038).
-- InnoDB limits a primary key to 3072 bytes, hence the lengths of tenant_id (191 characters)
-- and path (500 characters).

CREATE TABLE IF NOT EXISTS idempotency_keys (
    `key`                 VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
                          COMMENT 'The client''s Idempotency-Key, unquoted (1-255 visible ASCII characters)',
    tenant_id             VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL
                          COMMENT 'The tenant the request belongs to, as the tenant resolver named it',
    method                VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
                          COMMENT 'The upper-case HTTP method',
    path                  VARCHAR(500) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL
                          COMMENT 'The normalized request path, without query string or fragment',
    request_hash          VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
                          COMMENT 'Hex SHA-256 of the canonical request body of the request that reserved the key',
    state                 VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
                          COMMENT 'IN_FLIGHT (reserved, handler running) or COMPLETED (response stored for replay)',
    owner_token           VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
                          COMMENT 'Random token of the reservation that wrote the row; only its holder may finish it',
    locked_until          DATETIME(6) NULL
                          COMMENT 'IN_FLIGHT: end of the lease (UTC); NULL when COMPLETED',
    response_status       SMALLINT NULL
                          COMMENT 'COMPLETED: the stored HTTP status',
    response_content_type VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL
                          COMMENT 'COMPLETED: the stored Content-Type, or NULL when the response had none',
    response_headers      MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL
                          COMMENT 'COMPLETED: allow-listed response headers as a JSON array of [name, value] pairs',
    response_body         LONGBLOB NULL
                          COMMENT 'COMPLETED: the response body, byte for byte',
    format_version        SMALLINT NOT NULL
                          COMMENT 'Version of the stored record format (response_headers encoding); 1',
    expires_at            DATETIME(6) NOT NULL
                          COMMENT 'After this instant (UTC) the row counts as absent and may be purged',
    created_at            DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
                          COMMENT 'When the current record was reserved or inserted (UTC)',
    PRIMARY KEY (`key`, tenant_id, method, path),
    KEY idempotency_keys_expires_at_idx (expires_at),
    CONSTRAINT idempotency_keys_state_check CHECK (state IN ('IN_FLIGHT', 'COMPLETED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
  COMMENT = 'Idempotency-Key records: one per (key, tenant, method, path)';
