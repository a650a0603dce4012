package dev.idempotency.framework.internal;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.R2dbcSettings;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.r2dbc.R2dbcStore;
import java.util.concurrent.CompletionException;

/**
 * Runs {@link R2dbcStore#verifySchema()} on the engine's store when it is an {@code R2dbcStore},
 * waiting for it, so a missing table or column fails the start with a message naming it, and for a
 * missing table the setting that creates it ({@code idempotency.r2dbc.verify-schema}, on by
 * default). Needs idempotency-r2dbc on the classpath; runs while the application starts, never on
 * an event loop.
 */
public final class R2dbcSchemaCheck implements StoreCheck {

    @Override
    public void check(Store store) {
        // a blocking store is not an R2dbcStore
    }

    @Override
    public void check(AsyncStore store) {
        if (store instanceof R2dbcStore r2dbc) {
            try {
                r2dbc.verifySchema().toCompletableFuture().join();
            } catch (CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException runtime ? runtime
                        : new IllegalStateException("Idempotency schema check failed", e.getCause());
                throw MissingTable.withHint(cause, R2dbcSettings.PREFIX);
            }
        }
    }
}
