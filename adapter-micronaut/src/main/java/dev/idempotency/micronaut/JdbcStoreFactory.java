package dev.idempotency.micronaut;

import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.util.StringUtils;
import io.micronaut.inject.qualifiers.Qualifiers;
import jakarta.inject.Singleton;
import javax.sql.DataSource;
import org.jooq.SQLDialect;

/**
 * With idempotency-jdbc on the classpath: a {@link JdbcStore} over the application's
 * {@link DataSource} when the application defines no {@link Store} bean of its own
 * ({@link IdempotencyJdbcProperties}). The engine is created with the context, so the store is built,
 * its table created when {@code idempotency.jdbc.initialize-schema} says so, and its schema checked
 * ({@link JdbcSchemaCheckFactory}) while the application starts. Both come after the application's
 * micronaut-flyway or micronaut-liquibase: they migrate a data source as the bean is created, before
 * this factory receives it.
 */
@Factory
@Requires(classes = JdbcStore.class)
@Requires(property = IdempotencyProperties.PREFIX + ".enabled", value = StringUtils.TRUE)
class JdbcStoreFactory {

    @Singleton
    @Requires(beans = DataSource.class)
    @Requires(missingBeans = Store.class)
    @Requires(property = IdempotencyJdbcProperties.PREFIX + ".enabled", notEquals = StringUtils.FALSE)
    Store idempotencyStore(IdempotencyJdbcProperties properties, BeanContext beans) {
        DataSource dataSource = properties.getDatasource() == null
                ? beans.getBean(DataSource.class)
                : beans.getBean(DataSource.class, Qualifiers.byName(properties.getDatasource()));
        JdbcStore store = properties.toStoreBuilder(dataSource).build();
        if (properties.getInitializeSchema().creates(() -> store.dialect() == SQLDialect.H2)) {
            store.createTableIfMissing();
        }
        return store;
    }
}
