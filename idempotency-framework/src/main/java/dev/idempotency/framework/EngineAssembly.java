package dev.idempotency.framework;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.ReplayPolicy;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an integration's engine from its {@link IdempotencySettings} and whichever parts the
 * application defines as beans; the engine's defaults fill the rest. Without a store it warns and
 * uses an in-memory one, and runs every {@link StoreCheck} on the store, in the order given. Each part may be given as {@code null}: not defined.
 */
public final class EngineAssembly {

    private static final Logger log = LoggerFactory.getLogger(EngineAssembly.class);

    private final IdempotencyConfig.Builder config;
    private final List<StoreCheck> checks = new ArrayList<>();
    private Store store;

    private EngineAssembly(IdempotencySettings settings) {
        this.config = settings.toConfigBuilder();
    }

    /** Starts an engine of {@code settings}. */
    public static EngineAssembly of(IdempotencySettings settings) {
        return new EngineAssembly(settings);
    }

    public EngineAssembly store(Store store) {
        this.store = store;
        return this;
    }

    public EngineAssembly tenantResolver(TenantResolver resolver) {
        if (resolver != null) {
            config.tenantResolver(resolver);
        }
        return this;
    }

    public EngineAssembly callerResolver(CallerResolver resolver) {
        if (resolver != null) {
            config.callerResolver(resolver);
        }
        return this;
    }

    public EngineAssembly canonicalizer(BodyCanonicalizer canonicalizer) {
        if (canonicalizer != null) {
            config.canonicalizer(canonicalizer);
        }
        return this;
    }

    public EngineAssembly replayPolicy(ReplayPolicy policy) {
        if (policy != null) {
            config.replayPolicy(policy);
        }
        return this;
    }

    public EngineAssembly listener(IdempotencyListener listener) {
        config.addListener(listener);
        return this;
    }

    public EngineAssembly check(StoreCheck check) {
        checks.add(check);
        return this;
    }

    /** The engine; an invalid setting, or a failed check, throws here, so the start fails. */
    public IdempotencyEngine build() {
        Store engineStore = store;
        if (engineStore == null) {
            log.warn("No idempotency Store bean defined: using an in-memory store. Its records are lost on "
                    + "restart and not shared between instances; define a Store bean (or a DataSource, with "
                    + "idempotency-jdbc) in production.");
            engineStore = new InMemoryStore();
        }
        for (StoreCheck check : checks) {
            check.check(engineStore);
        }
        return new IdempotencyEngine(engineStore, config.build());
    }
}
