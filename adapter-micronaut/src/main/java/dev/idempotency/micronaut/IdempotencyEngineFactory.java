package dev.idempotency.micronaut;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.internal.EngineAssembly;
import dev.idempotency.framework.PurgeSettings;
import dev.idempotency.framework.internal.ScheduledPurge;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.util.StringUtils;

/**
 * The engine from {@link IdempotencyProperties} and the application's beans ({@link EngineAssembly}:
 * a {@code Store}, resolvers, listeners, store checks and, in their {@code @Order}, every
 * {@link dev.idempotency.framework.IdempotencyConfigCustomizer}); and the purge of the application's store
 * ({@code idempotency.purge.*}). An application that defines an {@link IdempotencyEngine} bean
 * itself gets that one.
 */
@Factory
@Requires(property = IdempotencyProperties.PREFIX + ".enabled", value = StringUtils.TRUE)
class IdempotencyEngineFactory {

    // Eager (@Context): an invalid configuration (a mode the store cannot do, a lease longer than
    // the ttl, a value that does not convert) fails the application's start, not its first request.
    @Context
    @Requires(missingBeans = IdempotencyEngine.class)
    @Bean(preDestroy = "close")
    IdempotencyEngine idempotencyEngine(IdempotencyProperties properties, BeanContext beans) {
        return EngineAssembly.of(properties).build(type -> beans.findBean(type).orElse(null),
                type -> beans.getBeansOfType(type).stream());
    }

    /** On the engine's clock; the in-memory fallback store is not purged. */
    @Context
    @Requires(beans = Store.class)
    @Requires(property = PurgeSettings.PREFIX + ".enabled", notEquals = StringUtils.FALSE)
    @Bean(preDestroy = "close")
    ScheduledPurge idempotencyPurge(IdempotencyPurgeProperties purge, Store store, IdempotencyEngine engine) {
        return ScheduledPurge.start(purge, store, engine.config().clock());
    }
}
