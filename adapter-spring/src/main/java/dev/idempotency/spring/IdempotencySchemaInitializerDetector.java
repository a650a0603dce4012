package dev.idempotency.spring;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that an {@link IdempotencySchemaInitializer} initializes the database, so that
 * beans depending on database initialization wait for it. Ordered after Boot's own detectors
 * (Liquibase, Flyway, SQL scripts): Boot makes a later detector's initializers wait for the earlier
 * ones, so the table is created only after the application's own migrations have run, which then
 * find the schema as they left it. Registered in {@code META-INF/spring.factories}.
 */
class IdempotencySchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(IdempotencySchemaInitializer.class);
    }

    @Override
    public int getOrder() {
        // after DataSourceScriptDatabaseInitializerDetector (LOWEST_PRECEDENCE - 100)
        return Ordered.LOWEST_PRECEDENCE - 50;
    }
}
