package dev.idempotency.testkit;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;

/** The in-memory store's asynchronous face (calls on a worker pool) against the same contract. */
class InMemoryAsyncFaceContractTest extends AsyncStoreContractTest {

    private static final ExecutorService WORKERS = Executors.newFixedThreadPool(8);

    @AfterAll
    static void stopWorkers() {
        WORKERS.shutdownNow();
    }

    @Override
    protected AsyncStore createAsyncStore() {
        return AsyncStore.of(new InMemoryStore(), WORKERS);
    }
}
