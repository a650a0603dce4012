package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The test kit's contract on PostgreSQL through r2dbc-postgresql: two pools for two instances. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresR2dbcContractTest extends AsyncStoreContractTest {

    private R2dbcTestDatabase db;
    private R2dbcStore first;
    private R2dbcStore second;

    R2dbcTestDatabase openDatabase() {
        return R2dbcTestDatabase.postgres();
    }

    @BeforeAll
    void createTable() {
        db = openDatabase();
        db.createTable(R2dbcStore.DEFAULT_TABLE);
        first = R2dbcStore.create(db.pool("contract-a", 8));
        second = R2dbcStore.create(db.pool("contract-b", 8));
    }

    @AfterAll
    void dropSchema() {
        db.close();
    }

    @Override
    protected AsyncStore createAsyncStore() {
        return first;
    }

    @Override
    protected AsyncStore secondAsyncInstance() {
        return second;
    }
}
