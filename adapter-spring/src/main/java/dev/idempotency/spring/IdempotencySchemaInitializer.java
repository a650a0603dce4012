package dev.idempotency.spring;

import java.util.function.BooleanSupplier;
import org.springframework.beans.factory.InitializingBean;

/**
 * Creates the auto-configured store's table while the application starts
 * ({@code idempotency.jdbc.initialize-schema}, {@code idempotency.r2dbc.initialize-schema}): when
 * the setting says so for this database it runs the store's {@code createTableIfMissing()}, which
 * leaves an existing table as it is. A database initializer for Spring Boot
 * ({@link IdempotencySchemaInitializerDetector}): it runs after the application's Flyway, Liquibase
 * and SQL scripts, and before every bean that depends on database initialization, the engine with
 * its schema check among them.
 */
final class IdempotencySchemaInitializer implements InitializingBean {

    private final BooleanSupplier creates;
    private final Runnable createTable;

    /**
     * @param creates     whether this start creates the table, asked once the application's own
     *                    initializers have run
     * @param createTable the store's {@code createTableIfMissing()}, waited for
     */
    IdempotencySchemaInitializer(BooleanSupplier creates, Runnable createTable) {
        this.creates = creates;
        this.createTable = createTable;
    }

    /** Whether this start creates the table. */
    boolean creates() {
        return creates.getAsBoolean();
    }

    @Override
    public void afterPropertiesSet() {
        if (creates()) {
            createTable.run();
        }
    }
}
