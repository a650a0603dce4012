package dev.idempotency.jdbc;

/** The atomic mode on MariaDB. */
class MariaDbAtomicModeTest extends AbstractAtomicModeTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.mariadb();
    }
}
