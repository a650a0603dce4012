package dev.idempotency.spring;

import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.jdbc.JdbcStore;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;

/**
 * Creates the auto-configured store's table while the application starts
 * ({@code idempotency.jdbc.initialize-schema}): with {@code always}, or with {@code embedded} (the
 * default) when the data source is an embedded database, it runs
 * {@link JdbcStore#createTableIfMissing()}, which leaves an existing table as it is. A database
 * initializer for Spring Boot ({@link IdempotencySchemaInitializerDetector}): it runs after the
 * application's Flyway, Liquibase and SQL scripts, and before every bean that depends on database
 * initialization, the engine with its schema check among them.
 */
final class IdempotencySchemaInitializer implements InitializingBean {

    private final JdbcStore store;
    private final DataSource dataSource;
    private final JdbcSettings.InitializeSchema mode;
    private final Predicate<DataSource> embedded;

    IdempotencySchemaInitializer(JdbcStore store, DataSource dataSource, JdbcSettings.InitializeSchema mode,
                                 Predicate<DataSource> embedded) {
        this.store = store;
        this.dataSource = dataSource;
        this.mode = mode;
        this.embedded = embedded;
    }

    /** Whether this start creates the table: {@code always}, or {@code embedded} on an embedded database. */
    boolean creates() {
        return mode.creates(() -> embedded.test(dataSource));
    }

    @Override
    public void afterPropertiesSet() {
        if (creates()) {
            store.createTableIfMissing();
        }
    }
}
