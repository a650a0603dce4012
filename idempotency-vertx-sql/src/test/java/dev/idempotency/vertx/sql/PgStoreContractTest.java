package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The test kit's contract on PostgreSQL through the Vert.x client: two pools for two instances. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgStoreContractTest extends AsyncStoreContractTest {

    private PgTestDatabase db;
    private PgStore first;
    private PgStore second;

    @BeforeAll
    void createTable() {
        db = new PgTestDatabase();
        first = PgStore.create(db.pool("contract-a", 8));
        second = PgStore.create(db.pool("contract-b", 8));
        PgTestDatabase.await(first.createTableIfMissing());
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
