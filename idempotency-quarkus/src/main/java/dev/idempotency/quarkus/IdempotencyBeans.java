package dev.idempotency.quarkus;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.EngineAssembly;
import dev.idempotency.framework.ScheduledPurge;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.jakartars.IdempotencyFeature;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store, engine, feature and purge of a Quarkus application, from {@link IdempotencyConfiguration}
 * and whichever of {@link Store}, {@link TenantResolver}, {@link CallerResolver},
 * {@link BodyCanonicalizer} and {@link ReplayPolicy} the application defines as beans, with every
 * {@link IdempotencyListener} and {@link StoreCheck} bean. An application's own {@link Store} or
 * {@link IdempotencyEngine} bean replaces the one made here.
 *
 * <p>The store: a {@code JdbcStore} over the application's Agroal data source when idempotency-jdbc
 * and quarkus-agroal are on the class path and the data source is active, otherwise in memory.
 * Those libraries, and Micrometer for the meters, are optional: the classes that name them load
 * only when they are present.
 */
@Singleton
class IdempotencyBeans {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyBeans.class);

    @Produces
    @Singleton
    @DefaultBean
    Store idempotencyStore(IdempotencyConfiguration config) {
        if (config.jdbc().enabled() && Classes.present("dev.idempotency.jdbc.JdbcStore")
                && Classes.present("io.quarkus.agroal.runtime.AgroalDataSourceUtil")) {
            Store store = JdbcStores.create(config.jdbcSettings());
            if (store != null) {
                return store;
            }
        }
        log.warn("No idempotency Store bean and no active data source: using an in-memory store. Its records "
                + "are lost on restart and not shared between instances; define a Store bean (or a data source, "
                + "with idempotency-jdbc) in production.");
        return new InMemoryStore();
    }

    @Produces
    @Singleton
    @DefaultBean
    IdempotencyEngine idempotencyEngine(IdempotencyConfiguration config, Store store,
                                        Instance<TenantResolver> tenantResolver,
                                        Instance<CallerResolver> callerResolver,
                                        Instance<BodyCanonicalizer> canonicalizer,
                                        Instance<ReplayPolicy> replayPolicy,
                                        @Any Instance<IdempotencyListener> listeners,
                                        @Any Instance<StoreCheck> checks) {
        EngineAssembly engine = EngineAssembly.of(config.settings())
                .store(store)
                .tenantResolver(one(tenantResolver))
                .callerResolver(one(callerResolver))
                .canonicalizer(one(canonicalizer))
                .replayPolicy(one(replayPolicy));
        listeners.forEach(engine::listener);
        if (config.metrics().enabled() && Classes.present("io.micrometer.core.instrument.MeterRegistry")
                && Classes.present("dev.idempotency.micrometer.IdempotencyMetrics")) {
            Meters.listener(config.metrics().pathTag()).ifPresent(engine::listener);
        }
        checks.forEach(engine::check);
        if (config.jdbc().verifySchema() && Classes.present("dev.idempotency.jdbc.JdbcStore")) {
            engine.check(JdbcStores.schemaCheck());
        }
        return engine.build();
    }

    void closeEngine(@Disposes IdempotencyEngine engine) {
        engine.close();
    }

    @Produces
    @Singleton
    IdempotencyFeature idempotencyFeature(IdempotencyConfiguration config, IdempotencyEngine engine, Store store) {
        return IdempotencyFeature.builder(engine).store(store).paths(config.paths().toArray(String[]::new)).build();
    }

    void closeFeature(@Disposes IdempotencyFeature feature) {
        feature.close();
    }

    /** On the engine's clock; started with the application when the filters are enabled. */
    @Produces
    @Singleton
    ScheduledPurge idempotencyPurge(IdempotencyConfiguration config, Store store, IdempotencyEngine engine) {
        return ScheduledPurge.start(config.purgeSettings(), store, engine.config().clock());
    }

    void closePurge(@Disposes ScheduledPurge purge) {
        purge.close();
    }

    /**
     * The engine, its feature and the purge are made as the application starts, so an invalid
     * setting or a missing table fails the start, not the first request.
     */
    void start(@Observes StartupEvent event, IdempotencyConfiguration config, Instance<IdempotencyFeature> feature,
               Instance<ScheduledPurge> purge) {
        if (config.enabled()) {
            feature.get();
            purge.get().isScheduled();
        }
    }

    private static <T> T one(Instance<T> beans) {
        return beans.isResolvable() ? beans.get() : null;
    }
}
