package dev.idempotency.framework.internal;

import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;

/**
 * Runs {@link JdbcStore#verifySchema()} on the engine's store when it is a {@code JdbcStore}, so a
 * missing table or column fails the start with a message naming it, and for a missing table the
 * setting that creates it ({@code idempotency.jdbc.verify-schema}, on by default). Needs
 * idempotency-jdbc on the classpath.
 */
public final class JdbcSchemaCheck implements StoreCheck {

    @Override
    public void check(Store store) {
        if (store instanceof JdbcStore jdbc) {
            try {
                jdbc.verifySchema();
            } catch (IllegalStateException e) {
                throw MissingTable.withHint(e, JdbcSettings.PREFIX);
            }
        }
    }
}
