package dev.idempotency.jdbc;

/** Exact-count races on MariaDB. */
class MariaDbConcurrencyTest extends AbstractConcurrencyTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.mariadb();
    }
}
