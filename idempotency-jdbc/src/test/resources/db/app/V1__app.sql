-- The application's own first migration, beside idempotency-jdbc's (FlywayRecipesTest).
CREATE TABLE app_orders (
    id   BIGINT       NOT NULL PRIMARY KEY,
    note VARCHAR(100) NOT NULL
);
