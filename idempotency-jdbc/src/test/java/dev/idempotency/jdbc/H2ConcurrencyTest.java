package dev.idempotency.jdbc;

/** Exact-count races on H2. */
class H2ConcurrencyTest extends AbstractJdbcRaceTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.h2();
    }
}
