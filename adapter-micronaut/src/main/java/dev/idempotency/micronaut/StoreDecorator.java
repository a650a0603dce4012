package dev.idempotency.micronaut;

import dev.idempotency.core.store.Store;

/**
 * Wraps the store the adapter builds its engine over — the application's {@code Store} bean or the
 * in-memory fallback — without replacing the bean itself, whose other users (a purge job, the
 * application's own code) keep the type they injected. The metrics' store timers come this way.
 */
interface StoreDecorator {

    Store decorate(Store store);
}
