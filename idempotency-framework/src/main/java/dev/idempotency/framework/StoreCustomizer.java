package dev.idempotency.framework;

import dev.idempotency.core.store.Store;

/**
 * A step an integration applies, once while the application starts, to the store it builds its
 * engine over — the application's {@code Store} bean, however it was defined, or the in-memory
 * fallback: every customizer's {@link #check} first (throwing fails the start: the JDBC schema
 * check), then every {@link #decorate} (the metrics' store timers), without replacing the bean
 * itself, whose other users keep the type they injected.
 */
public interface StoreCustomizer {

    default void check(Store store) {
    }

    default Store decorate(Store store) {
        return store;
    }
}
