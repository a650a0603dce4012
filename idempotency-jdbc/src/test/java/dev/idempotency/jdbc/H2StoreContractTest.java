package dev.idempotency.jdbc;

/** The Store contract on H2 in memory (MERGE). */
class H2StoreContractTest extends AbstractJdbcStoreContractTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.h2();
    }
}
