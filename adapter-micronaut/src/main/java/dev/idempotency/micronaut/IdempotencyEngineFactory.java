package dev.idempotency.micronaut;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.Store;
import dev.idempotency.framework.EngineAssembly;
import dev.idempotency.framework.PurgeSettings;
import dev.idempotency.framework.ScheduledPurge;
import dev.idempotency.framework.StoreCheck;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.util.StringUtils;
import java.util.List;

/**
 * The engine ({@link EngineAssembly}) from {@link IdempotencyProperties} and whichever of
 * {@link Store}, {@link TenantResolver}, {@link CallerResolver}, {@link BodyCanonicalizer} and
 * {@link ReplayPolicy} the application defines as beans, with every {@link IdempotencyListener} and
 * {@link StoreCheck} bean; and the purge of the application's store
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
    IdempotencyEngine idempotencyEngine(IdempotencyProperties properties,
                                        @Nullable Store store,
                                        @Nullable TenantResolver tenantResolver,
                                        @Nullable CallerResolver callerResolver,
                                        @Nullable BodyCanonicalizer canonicalizer,
                                        @Nullable ReplayPolicy replayPolicy,
                                        List<IdempotencyListener> listeners,
                                        List<StoreCheck> checks) {
        EngineAssembly engine = EngineAssembly.of(properties)
                .store(store)
                .tenantResolver(tenantResolver)
                .callerResolver(callerResolver)
                .canonicalizer(canonicalizer)
                .replayPolicy(replayPolicy);
        listeners.forEach(engine::listener);
        checks.forEach(engine::check);
        return engine.build();
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
