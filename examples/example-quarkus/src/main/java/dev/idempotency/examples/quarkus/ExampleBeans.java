package dev.idempotency.examples.quarkus;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.Store;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * {@link ExampleApp} — the database, the tables, the repository, the engine and its store, from the
 * environment — as a bean made at start, and its engine and store as the beans idempotency-quarkus
 * uses instead of making its own. They are asked for only with {@code idempotency.enabled=true},
 * which {@code IDEMPOTENCY=off} turns off together with {@link ExampleApp#engine()}.
 */
@Singleton
class ExampleBeans {

    @Produces
    @Singleton
    @Startup
    ExampleApp exampleApp() {
        return ExampleApp.create(ExampleSettings.fromEnvironment());
    }

    /** After the server has stopped: the engine, the store, the database. */
    void close(@Disposes ExampleApp app) {
        app.close();
    }

    @Produces
    @Singleton
    IdempotencyEngine idempotencyEngine(ExampleApp app) {
        return app.engine().orElseThrow(() -> new IllegalStateException("IDEMPOTENCY=off: no engine"));
    }

    @Produces
    @Singleton
    Store idempotencyStore(ExampleApp app) {
        return app.blockingStore().orElseThrow(() -> new IllegalStateException("IDEMPOTENCY=off: no store"));
    }
}
