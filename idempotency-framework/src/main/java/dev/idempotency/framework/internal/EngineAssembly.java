package dev.idempotency.framework.internal;

import dev.idempotency.framework.IdempotencyConfigCustomizer;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.InvalidSettingsException;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an integration's engine from its {@link IdempotencySettings} and the beans the
 * application defines, found in the framework's container; the engine's defaults fill the rest.
 * Read from the container: one {@link Store} (or, without one, an {@link AsyncStore}),
 * {@link TenantResolver}, {@link CallerResolver}, {@link BodyCanonicalizer} and {@link ReplayPolicy}
 * each, and every {@link IdempotencyListener}, {@link StoreCheck} and
 * {@link IdempotencyConfigCustomizer}. Without a store it warns and uses an in-memory one; every
 * check runs on the store, in order; over an asynchronous store the atomic mode's lease is checked
 * too ({@link AtomicLease}).
 */
public final class EngineAssembly {

    private static final Logger log = LoggerFactory.getLogger(EngineAssembly.class);

    private final IdempotencyConfig.Builder config;
    private final List<StoreCheck> checks = new ArrayList<>();
    private final List<IdempotencyConfigCustomizer> customizers = new ArrayList<>();

    private EngineAssembly(IdempotencySettings settings) {
        this.config = settings.toConfigBuilder();
    }

    /**
     * Starts an engine of {@code settings}.
     *
     * @throws InvalidSettingsException when the settings cannot work
     */
    public static EngineAssembly of(IdempotencySettings settings) {
        return new EngineAssembly(settings);
    }

    /** A check the integration adds to the application's {@link StoreCheck} beans; it runs after them. */
    public EngineAssembly check(StoreCheck check) {
        checks.add(check);
        return this;
    }

    /** A customizer the integration adds to the application's; it runs before them. */
    public EngineAssembly customizer(IdempotencyConfigCustomizer customizer) {
        customizers.add(customizer);
        return this;
    }

    /**
     * The engine over the application's beans; an invalid setting, or a failed check, throws here,
     * so the start fails.
     *
     * @param bean the application's bean of a type, as the container would inject it, or
     *             {@code null} when it defines none
     * @param beans every bean of a type, in the container's order
     */
    public IdempotencyEngine build(Function<Class<?>, ?> bean, Function<Class<?>, ? extends Stream<?>> beans) {
        set(bean, TenantResolver.class, config::tenantResolver);
        set(bean, CallerResolver.class, config::callerResolver);
        set(bean, BodyCanonicalizer.class, config::canonicalizer);
        set(bean, ReplayPolicy.class, config::replayPolicy);
        beans.apply(IdempotencyListener.class).map(IdempotencyListener.class::cast).forEach(config::addListener);
        Stream.concat(customizers.stream(), beans.apply(IdempotencyConfigCustomizer.class)
                .map(IdempotencyConfigCustomizer.class::cast)).forEach(customizer -> customizer.customize(config));
        List<StoreCheck> all = Stream.concat(beans.apply(StoreCheck.class).map(StoreCheck.class::cast), checks.stream())
                .toList();
        Store store = (Store) bean.apply(Store.class);
        AsyncStore async = store == null ? (AsyncStore) bean.apply(AsyncStore.class) : null;
        if (async != null) {
            all.forEach(check -> check.check(async));
            IdempotencyConfig built = config.build();
            AtomicLease.check(built, async);
            return new IdempotencyEngine(async, built);
        }
        Store blocking = Objects.requireNonNullElseGet(store, EngineAssembly::inMemory);
        all.forEach(check -> check.check(blocking));
        return new IdempotencyEngine(blocking, config.build());
    }

    private static Store inMemory() {
        log.warn("No idempotency Store bean defined: using an in-memory store. Its records are lost on "
                + "restart and not shared between instances; define a Store bean (or a DataSource, with "
                + "idempotency-jdbc, or a ConnectionFactory, with idempotency-r2dbc) in production.");
        return new InMemoryStore();
    }

    private static <T> void set(Function<Class<?>, ?> bean, Class<T> type, Consumer<T> setter) {
        T value = type.cast(bean.apply(type));
        if (value != null) {
            setter.accept(value);
        }
    }
}
