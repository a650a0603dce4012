package dev.idempotency.framework;

import dev.idempotency.core.store.Store;

/**
 * A check an integration runs, once while the application starts, on the store it builds its
 * engine over — the application's {@code Store} bean, however it was defined, or the in-memory
 * fallback. Throwing fails the start (the JDBC schema check).
 */
@FunctionalInterface
public interface StoreCheck {

    void check(Store store);
}
