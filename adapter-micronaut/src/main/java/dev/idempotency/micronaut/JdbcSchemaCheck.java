package dev.idempotency.micronaut;

import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.util.StringUtils;
import jakarta.inject.Singleton;

/**
 * Runs {@link JdbcStore#verifySchema()} on the engine's store when it is a {@code JdbcStore} — the
 * adapter's own ({@link JdbcStoreFactory}) or the application's bean — while the application
 * starts, so a missing table or column fails the start with a message naming it. Off with
 * {@code idempotency.jdbc.verify-schema: false}.
 */
@Singleton
@Requires(classes = JdbcStore.class)
@Requires(property = IdempotencyJdbcProperties.PREFIX + ".verify-schema", notEquals = StringUtils.FALSE)
class JdbcSchemaCheck implements StoreCheck {

    @Override
    public void check(Store store) {
        if (store instanceof JdbcStore jdbc) {
            jdbc.verifySchema();
        }
    }
}
