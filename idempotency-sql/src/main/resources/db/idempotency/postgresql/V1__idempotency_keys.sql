-- Idempotency-Key records for dev.idempotency:idempotency-jdbc (PostgreSQL 12+), record format 1.
-- Copy into Flyway or Liquibase as it is, or let JdbcStore.createTableIfMissing() run it in
-- development. Every statement may run again. The store binds every time it compares or writes;
-- the database clock is used only by the column defaults, which the store never relies on.

CREATE TABLE IF NOT EXISTS idempotency_keys (
    key                   TEXT        NOT NULL,
    tenant_id             TEXT        NOT NULL,
    method                TEXT        NOT NULL,
    path                  TEXT        NOT NULL,
    request_hash          TEXT        NOT NULL,
    state                 TEXT        NOT NULL,
    owner_token           TEXT        NOT NULL,
    locked_until          TIMESTAMPTZ,
    response_status       SMALLINT,
    response_content_type TEXT,
    response_headers      TEXT,
    response_body         BYTEA,
    format_version        SMALLINT    NOT NULL,
    expires_at            TIMESTAMPTZ NOT NULL DEFAULT now() + INTERVAL '24 hours',
    created_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (key, tenant_id, method, path),
    CONSTRAINT idempotency_keys_state_check CHECK (state IN ('IN_FLIGHT', 'COMPLETED')),
    CONSTRAINT idempotency_keys_response_check CHECK (
        state <> 'COMPLETED' OR (response_status IS NOT NULL AND response_body IS NOT NULL))
);

-- Purging reads expired rows in expires_at order; without this index every batch is a scan.
CREATE INDEX IF NOT EXISTS idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);

COMMENT ON TABLE idempotency_keys IS 'Idempotency-Key records: one per (key, tenant, method, path)';
COMMENT ON COLUMN idempotency_keys.key IS 'The client''s Idempotency-Key, unquoted (1-255 visible ASCII characters)';
COMMENT ON COLUMN idempotency_keys.tenant_id IS 'The tenant the request belongs to, as the tenant resolver named it';
COMMENT ON COLUMN idempotency_keys.method IS 'The upper-case HTTP method';
COMMENT ON COLUMN idempotency_keys.path IS 'The normalized request path, without query string or fragment';
COMMENT ON COLUMN idempotency_keys.request_hash IS 'Hex SHA-256 of the canonical request body of the request that reserved the key';
COMMENT ON COLUMN idempotency_keys.state IS 'IN_FLIGHT (reserved, handler running) or COMPLETED (response stored for replay)';
COMMENT ON COLUMN idempotency_keys.owner_token IS 'Random token of the reservation that wrote the row; only its holder may complete, release or renew it';
COMMENT ON COLUMN idempotency_keys.locked_until IS 'IN_FLIGHT: end of the lease, after which another request may take the key over; NULL when COMPLETED';
COMMENT ON COLUMN idempotency_keys.response_status IS 'COMPLETED: the stored HTTP status';
COMMENT ON COLUMN idempotency_keys.response_content_type IS 'COMPLETED: the stored Content-Type, or NULL when the response had none';
COMMENT ON COLUMN idempotency_keys.response_headers IS 'COMPLETED: allow-listed response headers as a JSON array of [name, value] pairs';
COMMENT ON COLUMN idempotency_keys.response_body IS 'COMPLETED: the response body, byte for byte';
COMMENT ON COLUMN idempotency_keys.format_version IS 'Version of the stored record format (response_headers encoding); 1';
COMMENT ON COLUMN idempotency_keys.expires_at IS 'After this instant the row counts as absent and may be purged';
COMMENT ON COLUMN idempotency_keys.created_at IS 'When the current record was reserved or inserted';
