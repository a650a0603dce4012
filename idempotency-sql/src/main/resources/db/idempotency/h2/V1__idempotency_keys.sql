-- Idempotency-Key records for dev.idempotency:idempotency-jdbc (H2 2.x), record format 1.
-- Copy into Flyway or Liquibase as it is, or let JdbcStore.createTableIfMissing() run it.
-- Names are quoted lower case, as the store writes them (KEY is a reserved word in H2).

CREATE TABLE IF NOT EXISTS "idempotency_keys" (
    "key"                   VARCHAR(255)                NOT NULL,
    "tenant_id"             VARCHAR                     NOT NULL,
    "method"                VARCHAR(32)                 NOT NULL,
    "path"                  VARCHAR                     NOT NULL,
    "request_hash"          VARCHAR(128)                NOT NULL,
    "state"                 VARCHAR(16)                 NOT NULL,
    "owner_token"           VARCHAR(64)                 NOT NULL,
    "locked_until"          TIMESTAMP(6) WITH TIME ZONE,
    "response_status"       SMALLINT,
    "response_content_type" VARCHAR,
    "response_headers"      VARCHAR,
    "response_body"         BINARY LARGE OBJECT,
    "format_version"        SMALLINT                    NOT NULL,
    "expires_at"            TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    "created_at"            TIMESTAMP(6) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("key", "tenant_id", "method", "path"),
    CONSTRAINT "idempotency_keys_state_check" CHECK ("state" IN ('IN_FLIGHT', 'COMPLETED'))
);

CREATE INDEX IF NOT EXISTS "idempotency_keys_expires_at_idx" ON "idempotency_keys" ("expires_at");
