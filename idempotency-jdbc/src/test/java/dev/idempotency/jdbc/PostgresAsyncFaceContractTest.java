package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreContractTest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The JDBC store's asynchronous face on PostgreSQL — calls on a worker pool, as an event-loop
 * application would run them — against the same contract, with two pools for two instances.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresAsyncFaceContractTest extends AsyncStoreContractTest {

    private final ExecutorService workers = Executors.newFixedThreadPool(16);
    private TestDatabase db;
    private HikariDataSource first;
    private HikariDataSource second;

    @BeforeAll
    void createTable() {
        db = TestDatabase.postgres();
        first = db.pool("async-a", 8);
        second = db.pool("async-b", 8);
        JdbcStore.create(first).createTableIfMissing();
    }

    @AfterAll
    void dropSchema() {
        workers.shutdownNow();
        db.close();
    }

    @Override
    protected AsyncStore createAsyncStore() {
        return AsyncStore.of(JdbcStore.create(first), workers);
    }

    @Override
    protected AsyncStore secondAsyncInstance() {
        return AsyncStore.of(JdbcStore.create(second), workers);
    }
}
