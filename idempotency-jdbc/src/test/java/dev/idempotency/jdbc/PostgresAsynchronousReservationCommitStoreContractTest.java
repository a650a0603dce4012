package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;

/** The Store contract on PostgreSQL with the reservation committed asynchronously: the same behaviour. */
class PostgresAsynchronousReservationCommitStoreContractTest extends AbstractJdbcStoreContractTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.postgres();
    }

    @Override
    JdbcStore store(HikariDataSource pool) {
        return JdbcStore.builder(pool).asynchronousReservationCommit(true).build();
    }
}
