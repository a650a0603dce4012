-- The application's own first migration (FreshDatabaseStartTest): a V1 of its own, as every Flyway
-- application has, beside which the idempotency table must still come to be.
CREATE TABLE orders (id BIGSERIAL PRIMARY KEY, item TEXT NOT NULL);
