package dev.idempotency.micronaut;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.util.StringUtils;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the engine from {@link IdempotencyProperties} and whichever of {@link Store},
 * {@link TenantResolver}, {@link CallerResolver}, {@link BodyCanonicalizer} and {@link ReplayPolicy}
 * the application defines as beans, with every {@link IdempotencyListener} bean (the application's and the
 * metrics') added; the engine's defaults fill the rest. The store, the application's or the
 * in-memory fallback, is checked by each {@link StoreCheck} bean (the JDBC schema check) and then
 * goes through each {@link StoreDecorator} bean (the metrics' store timers).
 * An application that defines an {@link IdempotencyEngine} bean itself gets that one.
 */
@Factory
@Requires(property = IdempotencyProperties.PREFIX + ".enabled", value = StringUtils.TRUE)
class IdempotencyEngineFactory {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngineFactory.class);

    // Eager (@Context): an invalid configuration (a mode the store cannot do, a lease longer than
    // the ttl, a value that does not convert) fails the application's start, not its first request.
    @Context
    @Requires(missingBeans = IdempotencyEngine.class)
    @Bean(preDestroy = "close")
    IdempotencyEngine idempotencyEngine(IdempotencyProperties properties,
                                        @Nullable Store store,
                                        @Nullable TenantResolver tenantResolver,
                                        @Nullable CallerResolver callerResolver,
                                        @Nullable BodyCanonicalizer canonicalizer,
                                        @Nullable ReplayPolicy replayPolicy,
                                        List<IdempotencyListener> listeners,
                                        List<StoreCheck> checks,
                                        List<StoreDecorator> decorators) {
        IdempotencyConfig.Builder config = properties.toConfigBuilder();
        if (tenantResolver != null) {
            config.tenantResolver(tenantResolver);
        }
        if (callerResolver != null) {
            config.callerResolver(callerResolver);
        }
        if (canonicalizer != null) {
            config.canonicalizer(canonicalizer);
        }
        if (replayPolicy != null) {
            config.replayPolicy(replayPolicy);
        }
        listeners.forEach(config::addListener);
        if (store == null) {
            log.warn("No idempotency Store bean defined: using an in-memory store. Its records are lost on "
                    + "restart and not shared between instances; define a Store bean (e.g. the JDBC store) "
                    + "in production.");
            store = new InMemoryStore();
        }
        for (StoreCheck check : checks) {
            check.check(store);
        }
        for (StoreDecorator decorator : decorators) {
            store = decorator.decorate(store);
        }
        return new IdempotencyEngine(store, config.build());
    }
}
