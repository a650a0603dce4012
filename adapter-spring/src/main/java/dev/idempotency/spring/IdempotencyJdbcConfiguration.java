package dev.idempotency.spring;

import dev.idempotency.core.store.Store;
import dev.idempotency.framework.internal.JdbcSchemaCheck;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.jdbc.JdbcStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With idempotency-jdbc on the classpath: a {@link JdbcStore} over the application's
 * {@link DataSource} when the application defines no {@link Store} bean of its own
 * ({@link IdempotencyJdbcProperties}), and the schema check of whichever {@code JdbcStore} the
 * engine gets — that one or the application's bean — while the application starts
 * ({@code idempotency.jdbc.verify-schema}, default on). The table is created first when
 * {@code idempotency.jdbc.initialize-schema} says so ({@link IdempotencySchemaInitializer}), and the
 * check waits for the application's database initialization (Flyway, Liquibase): the engine, which
 * runs it, depends on database initialization.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(JdbcStore.class)
@EnableConfigurationProperties(IdempotencyJdbcProperties.class)
class IdempotencyJdbcConfiguration {

    /**
     * The {@code JdbcStore} over the application's data source, when it defines no store, and the
     * initializer of its table ({@code idempotency.jdbc.initialize-schema}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(Store.class)
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnProperty(prefix = "idempotency.jdbc", name = "enabled", matchIfMissing = true)
    static class JdbcStoreConfiguration {

        @Bean
        JdbcStore idempotencyStore(IdempotencyJdbcProperties properties, ObjectProvider<DataSource> dataSources,
                                   BeanFactory beans) {
            return properties.toStoreBuilder(dataSource(properties, dataSources, beans)).build();
        }

        @Bean
        IdempotencySchemaInitializer idempotencySchemaInitializer(JdbcStore idempotencyStore,
                                                                  IdempotencyJdbcProperties properties,
                                                                  ObjectProvider<DataSource> dataSources,
                                                                  BeanFactory beans) {
            DataSource dataSource = dataSource(properties, dataSources, beans);
            return new IdempotencySchemaInitializer(() -> properties.getInitializeSchema()
                    .creates(() -> EmbeddedDatabases.detector(idempotencyStore).test(dataSource)),
                    idempotencyStore::createTableIfMissing);
        }
    }

    /**
     * The atomic mode's transaction as Spring's current one while the controller runs
     * ({@link SpringTransactionJoin}), when spring-jdbc is there: bound to the data source the
     * reservation's connection came from, whichever {@code JdbcStore} — the auto-configured one or
     * the application's own, under the auto-configured engine or its own — took it.
     */
    @Bean
    @ConditionalOnClass(name = "org.springframework.jdbc.datasource.ConnectionHolder")
    TransactionJoin idempotencyTransactionJoin() {
        return new SpringTransactionJoin();
    }

    private static DataSource dataSource(IdempotencyJdbcProperties properties, ObjectProvider<DataSource> dataSources,
                                         BeanFactory beans) {
        DataSource dataSource;
        if (properties.getDatasource() != null) {
            dataSource = beans.getBean(properties.getDatasource(), DataSource.class);
        } else {
            dataSource = dataSources.getIfUnique();
            if (dataSource == null) {
                throw new IllegalStateException("Several DataSource beans and none is primary: name the one for "
                        + "the idempotency store with idempotency.jdbc.datasource");
            }
        }
        return dataSource;
    }

    @Bean
    @ConditionalOnProperty(prefix = "idempotency.jdbc", name = "verify-schema", matchIfMissing = true)
    StoreCheck idempotencyJdbcSchemaCheck() {
        return new JdbcSchemaCheck();
    }
}
