package dev.idempotency.framework;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;

/**
 * A check an integration runs, once while the application starts, on the store it builds its
 * engine over — the application's {@code Store} (or {@code AsyncStore}) bean, however it was
 * defined, or the in-memory fallback. Throwing fails the start (the SQL stores' schema checks).
 */
@FunctionalInterface
public interface StoreCheck {

    /** Checks an engine's blocking store. */
    void check(Store store);

    /** Checks an engine's asynchronous store; may wait for it (it runs while the application starts). Default: nothing. */
    default void check(AsyncStore store) {
    }
}
