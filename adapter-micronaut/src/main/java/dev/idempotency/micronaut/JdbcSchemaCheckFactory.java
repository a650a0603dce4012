package dev.idempotency.micronaut;

import dev.idempotency.framework.internal.JdbcSchemaCheck;
import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.jdbc.JdbcStore;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.util.StringUtils;
import jakarta.inject.Singleton;

/**
 * The schema check of whichever {@code JdbcStore} the engine gets — the adapter's own
 * ({@link JdbcStoreFactory}) or the application's bean — while the application starts. Off with
 * {@code idempotency.jdbc.verify-schema: false}.
 */
@Factory
@Requires(classes = JdbcStore.class)
@Requires(property = JdbcSettings.PREFIX + ".verify-schema", notEquals = StringUtils.FALSE)
class JdbcSchemaCheckFactory {

    @Singleton
    StoreCheck idempotencyJdbcSchemaCheck() {
        return new JdbcSchemaCheck();
    }
}
