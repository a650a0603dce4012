package dev.idempotency.jdbc;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreRaceTest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The races through the JDBC store's asynchronous face on PostgreSQL: two pools, calls on a worker pool. */
class PostgresAsyncFaceRaceTest extends AsyncStoreRaceTest {

    private final ExecutorService workers = Executors.newFixedThreadPool(16);
    private TestDatabase db;

    @Override
    protected AsyncStore firstAsyncInstance() {
        db = TestDatabase.postgres();
        JdbcStore first = JdbcStore.create(db.pool("race-a", 8));
        first.createTableIfMissing();
        return AsyncStore.of(first, workers);
    }

    @Override
    protected AsyncStore secondAsyncInstance() {
        return AsyncStore.of(JdbcStore.create(db.pool("race-b", 8)), workers);
    }

    @Override
    protected void closeInstances() {
        workers.shutdownNow();
        db.close();
    }
}
