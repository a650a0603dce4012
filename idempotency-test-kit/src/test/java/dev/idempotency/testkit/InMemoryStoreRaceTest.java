package dev.idempotency.testkit;

import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;

/** The races on one in-memory store (it is not shared between processes, so both "instances" are one). */
class InMemoryStoreRaceTest extends StoreRaceTest {

    private final InMemoryStore store = new InMemoryStore();

    @Override
    protected Store firstInstance() {
        return store;
    }

    @Override
    protected Store secondInstance() {
        return store;
    }
}
