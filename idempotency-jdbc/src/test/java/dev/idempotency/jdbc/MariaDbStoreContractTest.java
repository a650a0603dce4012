package dev.idempotency.jdbc;

/** The Store contract on MariaDB (INSERT … ON DUPLICATE KEY UPDATE … RETURNING). */
class MariaDbStoreContractTest extends AbstractJdbcStoreContractTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.mariadb();
    }
}
