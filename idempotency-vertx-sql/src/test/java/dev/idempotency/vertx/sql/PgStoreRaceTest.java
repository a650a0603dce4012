package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreRaceTest;

/** The test kit's races on PostgreSQL through the Vert.x client: two instances, each with its own pool. */
class PgStoreRaceTest extends AsyncStoreRaceTest {

    private PgTestDatabase db;

    @Override
    protected AsyncStore firstAsyncInstance() {
        db = new PgTestDatabase();
        PgStore first = PgStore.create(db.pool("race-a", 8));
        PgTestDatabase.await(first.createTableIfMissing());
        return first;
    }

    @Override
    protected AsyncStore secondAsyncInstance() {
        return PgStore.create(db.pool("race-b", 8));
    }

    @Override
    protected void closeInstances() {
        db.close();
    }
}
