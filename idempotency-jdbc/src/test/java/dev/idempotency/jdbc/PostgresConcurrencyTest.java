package dev.idempotency.jdbc;

/** Exact-count races on PostgreSQL. */
class PostgresConcurrencyTest extends AbstractJdbcRaceTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.postgres();
    }
}
