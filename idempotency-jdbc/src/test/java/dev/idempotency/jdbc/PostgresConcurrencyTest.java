package dev.idempotency.jdbc;

/** Exact-count races on PostgreSQL. */
class PostgresConcurrencyTest extends AbstractConcurrencyTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.postgres();
    }
}
