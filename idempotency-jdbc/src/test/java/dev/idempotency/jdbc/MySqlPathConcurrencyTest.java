package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** Exact-count races through the MySQL read-back path, on MariaDB. */
class MySqlPathConcurrencyTest extends AbstractJdbcRaceTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.mariadb();
    }

    @Override
    JdbcStore store(HikariDataSource pool) {
        return MySqlPathStoreContractTest.readBackStore(pool);
    }
}
