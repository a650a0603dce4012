package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.framework.internal.R2dbcSchemaCheck;
import dev.idempotency.r2dbc.R2dbcStore;
import io.r2dbc.spi.ConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With idempotency-r2dbc on the classpath: an {@link R2dbcStore} over the application's
 * {@link ConnectionFactory} (Spring Boot's R2DBC auto-configuration, or its own bean) when the
 * application defines no {@code Store} or {@code AsyncStore} bean of its own
 * ({@link IdempotencyR2dbcProperties}, {@code idempotency.r2dbc.*}), and the schema check of
 * whichever {@code R2dbcStore} the auto-configured engine gets while the application starts
 * ({@code idempotency.r2dbc.verify-schema}, default on). The table is created first when
 * {@code idempotency.r2dbc.initialize-schema=always} ({@link IdempotencySchemaInitializer}, after
 * the application's Flyway or Liquibase).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({R2dbcStore.class, ConnectionFactory.class})
@EnableConfigurationProperties(IdempotencyR2dbcProperties.class)
class IdempotencyR2dbcConfiguration {

    /**
     * The store over the application's connection factory, and the initializer of its table; not
     * with an engine of the application's own, which has its store (only this configuration's
     * engine is registered after it).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean({Store.class, AsyncStore.class, IdempotencyEngine.class})
    @ConditionalOnBean(ConnectionFactory.class)
    @ConditionalOnProperty(prefix = "idempotency.r2dbc", name = "enabled", matchIfMissing = true)
    static class R2dbcStoreConfiguration {

        @Bean
        R2dbcStore idempotencyR2dbcStore(IdempotencyR2dbcProperties properties,
                                         ObjectProvider<ConnectionFactory> connectionFactories) {
            ConnectionFactory factory = connectionFactories.getIfUnique();
            if (factory == null) {
                throw new IllegalStateException("Several ConnectionFactory beans and none is primary: mark the one "
                        + "for the idempotency store @Primary, or define an R2dbcStore bean");
            }
            return properties.toStoreBuilder(factory).build();
        }

        @Bean
        IdempotencySchemaInitializer idempotencyR2dbcSchemaInitializer(R2dbcStore idempotencyR2dbcStore,
                                                                       IdempotencyR2dbcProperties properties) {
            return new IdempotencySchemaInitializer(properties::createsTable,
                    () -> idempotencyR2dbcStore.createTableIfMissing().toCompletableFuture().join());
        }
    }

    @Bean
    @ConditionalOnProperty(prefix = "idempotency.r2dbc", name = "verify-schema", matchIfMissing = true)
    StoreCheck idempotencyR2dbcSchemaCheck() {
        return new R2dbcSchemaCheck();
    }
}
