package dev.idempotency.testkit;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;

/**
 * The {@link StoreRaceTest} for the asynchronous face: every racing call made through an
 * {@link AsyncStore}, and the engines built on the asynchronous stores themselves.
 */
public abstract class AsyncStoreRaceTest extends StoreRaceTest {

    private final AsyncStore[] instances = new AsyncStore[2];

    /** The first asynchronous instance over fresh storage; called once, before the races. */
    protected abstract AsyncStore firstAsyncInstance();

    /** A second asynchronous instance over the same storage, with resources of its own. */
    protected abstract AsyncStore secondAsyncInstance();

    @Override
    protected final Store firstInstance() {
        instances[0] = firstAsyncInstance();
        return new JoiningStore(instances[0]);
    }

    @Override
    protected final Store secondInstance() {
        instances[1] = secondAsyncInstance();
        return new JoiningStore(instances[1]);
    }

    @Override
    protected IdempotencyEngine engine(int instance, IdempotencyConfig config) {
        return new IdempotencyEngine(instances[instance], config);
    }
}
