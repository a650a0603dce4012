package dev.idempotency.jdbc;

/** Idempotent calls in the atomic mode on PostgreSQL. */
class PostgresAtomicCallsTest extends AbstractAtomicCallsTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.postgres();
    }
}
