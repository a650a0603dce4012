package dev.idempotency.quarkus;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.ResultCodec;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.internal.EngineAssembly;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.PurgeSettings;
import dev.idempotency.framework.internal.ScheduledPurge;
import dev.idempotency.jakartars.IdempotencyFeature;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Set;
import org.eclipse.microprofile.config.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings, store, engine, feature, idempotent calls and purge of a Quarkus application. The settings are
 * idempotency-framework's classes bound from the configuration ({@link SettingsBinding}), read
 * afresh at each injection: the filters' binding reads them while the application is initialised
 * statically, the engine at run time. The engine is assembled ({@link EngineAssembly}) from them
 * and the application's beans: a {@code Store}, resolvers, listeners, store checks and every
 * {@code IdempotencyConfigCustomizer}. An application's own {@link Store} or
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
    private static final String METRICS = IdempotencySettings.PREFIX + ".metrics.";

    @Produces
    @Dependent
    IdempotencySettings idempotencySettings() {
        return StartFailure.shown(() -> {
            SettingsBinding.refuseUnknownKeys(Set.of(METRICS + "enabled", METRICS + "path-tag"));
            return SettingsBinding.bind(new IdempotencySettings(0) { }, IdempotencySettings.PREFIX);
        });
    }

    @Produces
    @Dependent
    PurgeSettings idempotencyPurgeSettings() {
        return StartFailure.shown(() -> SettingsBinding.bind(new PurgeSettings(), PurgeSettings.PREFIX));
    }

    @Produces
    @Singleton
    @DefaultBean
    Store idempotencyStore(IdempotencySettings settings) {
        if (Classes.present("dev.idempotency.jdbc.JdbcStore")
                && Classes.present("io.quarkus.agroal.runtime.AgroalDataSourceUtil")) {
            Store store = JdbcStores.create(settings);
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
    IdempotencyEngine idempotencyEngine(IdempotencySettings settings, @Any Instance<Object> beans) {
        return StartFailure.shown(() -> {
            EngineAssembly engine = EngineAssembly.of(settings);
            var config = ConfigProvider.getConfig();
            if (config.getOptionalValue(METRICS + "enabled", Boolean.class).orElse(true)
                    && Classes.present("io.micrometer.core.instrument.MeterRegistry")
                    && Classes.present("dev.idempotency.micrometer.IdempotencyMetrics")) {
                Meters.listener(config.getOptionalValue(METRICS + "path-tag", Boolean.class).orElse(false))
                        .ifPresent(listener -> engine.customizer(builder -> builder.addListener(listener)));
            }
            if (Classes.present("dev.idempotency.jdbc.JdbcStore")) {
                JdbcStores.schemaCheck().ifPresent(engine::check);
            }
            return engine.build(type -> one(beans.select(type, Default.Literal.INSTANCE)),
                    type -> beans.select(type).stream());
        });
    }

    void closeEngine(@Disposes IdempotencyEngine engine) {
        engine.close();
    }

    /**
     * What runs the {@link IdempotentMethod}s: over the store and the engine's configuration, with the
     * application's {@link ResultCodec} bean (else {@link ResultCodec#json()}). A second engine with a
     * timer thread of its own, made on the first call; an application's own bean replaces it.
     */
    @Produces
    @Singleton
    @DefaultBean
    IdempotentCalls idempotentCalls(Store store, IdempotencyEngine engine, Instance<ResultCodec> codecs) {
        return new IdempotentCalls(store, engine.config(), codecs.isResolvable() ? codecs.get() : ResultCodec.json());
    }

    void closeCalls(@Disposes IdempotentCalls calls) {
        calls.close();
    }

    @Produces
    @Singleton
    IdempotencyFeature idempotencyFeature(IdempotencySettings settings, IdempotencyEngine engine, Store store) {
        return IdempotencyFeature.builder(engine).store(store).paths(settings.getPaths().toArray(String[]::new)).build();
    }

    void closeFeature(@Disposes IdempotencyFeature feature) {
        feature.close();
    }

    /** On the engine's clock; started with the application when the filters are enabled. */
    @Produces
    @Singleton
    ScheduledPurge idempotencyPurge(PurgeSettings purge, Store store, IdempotencyEngine engine) {
        return ScheduledPurge.start(purge, store, engine.config().clock());
    }

    void closePurge(@Disposes ScheduledPurge purge) {
        purge.close();
    }

    /**
     * The engine, its feature and the purge are made as the application starts, so an invalid
     * setting or a missing table fails the start, not the first request.
     */
    void start(@Observes StartupEvent event, IdempotencySettings settings, Instance<IdempotencyFeature> feature,
               Instance<ScheduledPurge> purge) {
        if (settings.isEnabled()) {
            feature.get();
            purge.get().isScheduled();
        }
    }

    private static Object one(Instance<?> beans) {
        return beans.isResolvable() ? beans.get() : null;
    }
}
