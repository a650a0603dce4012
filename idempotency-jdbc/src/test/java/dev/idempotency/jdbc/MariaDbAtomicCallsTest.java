package dev.idempotency.jdbc;

/** Idempotent calls in the atomic mode on MariaDB. */
class MariaDbAtomicCallsTest extends AbstractAtomicCallsTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.mariadb();
    }
}
