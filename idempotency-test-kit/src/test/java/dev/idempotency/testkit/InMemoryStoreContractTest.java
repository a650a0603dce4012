package dev.idempotency.testkit;

import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;

class InMemoryStoreContractTest extends StoreContractTest {

    @Override
    protected Store createStore() {
        return new InMemoryStore();
    }
}
