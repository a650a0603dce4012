CREATE TABLE orders (idempotency_key TEXT NOT NULL);
