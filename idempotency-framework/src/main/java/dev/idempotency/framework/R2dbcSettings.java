package dev.idempotency.framework;

import dev.idempotency.r2dbc.R2dbcStore;
import io.r2dbc.spi.ConnectionFactory;

/**
 * The {@code idempotency.r2dbc.*} settings: how an integration builds an {@link R2dbcStore} over the
 * application's {@code ConnectionFactory} when idempotency-r2dbc is on the classpath and no store
 * bean is defined, and whether every {@code R2dbcStore} the engine gets checks its schema at start
 * ({@link SqlTableSettings}). The store speaks PostgreSQL and MariaDB, neither embedded, so
 * {@code initialize-schema: embedded} (the default) creates nothing: set {@code always}, or migrate.
 */
public class R2dbcSettings extends SqlTableSettings {

    /** The configuration prefix. */
    public static final String PREFIX = IdempotencySettings.PREFIX + ".r2dbc";

    public R2dbcSettings() {
        super(PREFIX, R2dbcStore.DEFAULT_TABLE, R2dbcStore.DEFAULT_STATEMENT_TIMEOUT);
    }

    /** Whether the table is created at start: {@code always} only, as no R2DBC database it speaks is embedded. */
    public boolean createsTable() {
        return getInitializeSchema().creates(() -> false);
    }

    /** The store these settings describe, over {@code connectionFactory}; its schema is checked separately. */
    public R2dbcStore.Builder toStoreBuilder(ConnectionFactory connectionFactory) {
        return R2dbcStore.builder(connectionFactory)
                .tableName(getTableName())
                .statementTimeout(getStatementTimeout());
    }
}
