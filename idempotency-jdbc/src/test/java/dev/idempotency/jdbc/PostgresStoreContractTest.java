package dev.idempotency.jdbc;

/** The Store contract on PostgreSQL (one-statement CTE upsert). */
class PostgresStoreContractTest extends AbstractJdbcStoreContractTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.postgres();
    }
}
