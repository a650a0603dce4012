package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreRaceTest;

/** The test kit's races on PostgreSQL through r2dbc-postgresql: two instances, each with its own pool. */
class PostgresR2dbcRaceTest extends AsyncStoreRaceTest {

    private R2dbcTestDatabase db;

    R2dbcTestDatabase openDatabase() {
        return R2dbcTestDatabase.postgres();
    }

    @Override
    protected AsyncStore firstAsyncInstance() {
        db = openDatabase();
        db.createTable(R2dbcStore.DEFAULT_TABLE);
        return R2dbcStore.create(db.pool("race-a", 8));
    }

    @Override
    protected AsyncStore secondAsyncInstance() {
        return R2dbcStore.create(db.pool("race-b", 8));
    }

    @Override
    protected void closeInstances() {
        db.close();
    }
}
