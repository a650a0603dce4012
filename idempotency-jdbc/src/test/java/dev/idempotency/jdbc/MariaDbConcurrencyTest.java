package dev.idempotency.jdbc;

/** Exact-count races on MariaDB. */
class MariaDbConcurrencyTest extends AbstractJdbcRaceTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.mariadb();
    }
}
