package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.internal.AtomicLease;
import dev.idempotency.framework.internal.EngineAssembly;
import dev.idempotency.framework.PurgeSettings;
import dev.idempotency.framework.internal.ScheduledPurge;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * With {@code idempotency.enabled=true}: the engine, built from {@link IdempotencyProperties} and
 * the application's beans ({@link EngineAssembly}: a {@code Store}, resolvers, listeners — the
 * application's and the metrics' — and, in their {@code @Order}, every
 * {@link dev.idempotency.framework.IdempotencyConfigCustomizer}); and, in a servlet web application, the
 * {@link IdempotencyFilter} in front of Spring MVC on {@code idempotency.paths} (in a reactive one,
 * idempotency-spring-webflux's auto-configuration adds its {@code WebFilter} over this engine).
 *
 * <p>An application that defines an {@link IdempotencyEngine} bean itself gets that one, and only
 * {@code enabled}, {@code paths}, {@code order} and {@code purge.*} are read (its {@code Store} or
 * {@code AsyncStore} bean is purged unless {@code idempotency.purge.enabled=false}); the others are
 * still checked, and those it sets named in a warning ({@link ApplicationEngine}). With
 * idempotency-jdbc on the classpath and a {@code DataSource} bean, the store is a {@code JdbcStore}
 * ({@link IdempotencyJdbcConfiguration}); else with idempotency-r2dbc and a {@code ConnectionFactory}
 * bean, an {@code R2dbcStore} ({@link IdempotencyR2dbcConfiguration}); with idempotency-micrometer
 * and a {@code MeterRegistry} bean, the engine has meters ({@link IdempotencyMetricsConfiguration}).
 *
 * <p>Each authenticated caller's records are its own ({@code getUserPrincipal()}, unless a
 * {@code CallerResolver} bean says otherwise); {@code idempotency.share-records-across-callers}
 * files them together (the engine logs that as a warning when it starts).
 *
 * <p>The engine is a singleton created while the context starts, so an invalid configuration (a
 * mode the store cannot do, a lease longer than the ttl, a value that does not convert) fails the
 * start, not the first request. It depends on database initialization: it is created, and the
 * store's schema checked, after the application's Flyway or Liquibase has run, even though the
 * filter needs it while the web server starts. With Boot's health module, the engine's store is
 * the {@code idempotency} health component ({@link IdempotencyHealthConfiguration}).
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", havingValue = "true")
@EnableConfigurationProperties({IdempotencyProperties.class, IdempotencyPurgeProperties.class})
@Import({IdempotencyJdbcConfiguration.class, IdempotencyR2dbcConfiguration.class, IdempotencyMetricsConfiguration.class,
        IdempotencyAutoConfiguration.DatabaseInitializationOrder.class, IdempotencyHealthConfiguration.class})
public class IdempotencyAutoConfiguration {

    // The schema check runs here: after the application's Flyway, Liquibase and SQL scripts.
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    IdempotencyEngine idempotencyEngine(IdempotencyProperties properties, BeanFactory beans) {
        return EngineAssembly.of(properties).build(type -> beans.getBeanProvider(type).getIfAvailable(),
                type -> beans.getBeanProvider(type).orderedStream());
    }

    /**
     * The purge of the application's store ({@code idempotency.purge.*}), on the engine's clock,
     * when the application has a store (the in-memory fallback is not purged).
     */
    @Bean(destroyMethod = "close")
    @Lazy(false)
    @ConditionalOnBean(Store.class)
    @ConditionalOnProperty(prefix = PurgeSettings.PREFIX, name = "enabled", matchIfMissing = true)
    ScheduledPurge idempotencyPurge(IdempotencyPurgeProperties purge, Store store, IdempotencyEngine engine) {
        return ScheduledPurge.start(purge, store, engine.config().clock());
    }

    /**
     * The purge of the application's asynchronous store (the auto-configured {@code R2dbcStore}, or
     * an {@code AsyncStore} bean of its own) when it has no blocking one; its runs wait on the purge's
     * own thread, never on an event loop.
     */
    @Bean(destroyMethod = "close")
    @Lazy(false)
    @ConditionalOnBean(AsyncStore.class)
    @ConditionalOnMissingBean(Store.class)
    @ConditionalOnProperty(prefix = PurgeSettings.PREFIX, name = "enabled", matchIfMissing = true)
    ScheduledPurge idempotencyAsyncPurge(IdempotencyPurgeProperties purge, AsyncStore store, IdempotencyEngine engine) {
        return ScheduledPurge.start(purge, store, engine.config().clock());
    }

    /**
     * With an {@code IdempotencyEngine} bean of the application's own: its settings checked, the
     * keys it ignores and a store nothing purges named at start ({@link ApplicationEngine}), and
     * its atomic lease over its {@code AsyncStore} bean checked ({@link AtomicLease}).
     */
    @Bean
    @Lazy(false)
    static SmartInitializingSingleton idempotencyApplicationEngineReport(ConfigurableListableBeanFactory beans,
                                                                          Environment environment) {
        return () -> {
            if (ApplicationEngine.isTheApplications(beans)) {
                IdempotencyProperties properties = beans.getBean(IdempotencyProperties.class);
                IdempotencyPurgeProperties purge = beans.getBean(IdempotencyPurgeProperties.class);
                boolean stored = beans.getBeanNamesForType(Store.class).length > 0
                        || beans.getBeanNamesForType(AsyncStore.class).length > 0;
                ApplicationEngine.report(properties, environment, stored || !purge.isEnabled());
                AsyncStore async = beans.getBeanProvider(AsyncStore.class).getIfUnique();
                if (async != null) {
                    AtomicLease.check(beans.getBean(IdempotencyEngine.class).config(), async);
                }
            }
        };
    }

    /**
     * Boot's ordering of beans after database initialization, for {@link DependsOnDatabaseInitialization}
     * here and the table's initializer, also in an application that imports it nowhere else.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DatabaseInitializationDependencyConfigurer.class)
    @Import(DatabaseInitializationDependencyConfigurer.class)
    static class DatabaseInitializationOrder {
    }

    /** The filter, in a servlet web application with Spring's web classes. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(ContentCachingResponseWrapper.class)
    static class IdempotencyFilterConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "idempotencyFilter")
        FilterRegistrationBean<IdempotencyFilter> idempotencyFilter(IdempotencyEngine engine,
                                                                    IdempotencyProperties properties,
                                                                    ObjectProvider<TransactionJoin> transactions) {
            TransactionJoin join = transactions.getIfAvailable(() -> TransactionJoin.NONE);
            FilterRegistrationBean<IdempotencyFilter> registration =
                    new FilterRegistrationBean<>(new IdempotencyFilter(engine, properties.getPaths(), join));
            registration.setName("idempotencyFilter");
            registration.setOrder(properties.getOrder());
            registration.addUrlPatterns("/*");
            return registration;
        }
    }
}
