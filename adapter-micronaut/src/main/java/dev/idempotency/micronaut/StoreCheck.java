package dev.idempotency.micronaut;

import dev.idempotency.core.store.Store;

/**
 * A check of the store the adapter builds its engine over — the application's {@code Store} bean,
 * however it was defined, or the adapter's own — run once while the application starts, before any
 * {@link StoreDecorator} wraps it. Throwing fails the start. The JDBC schema check comes this way.
 */
interface StoreCheck {

    void check(Store store);
}
