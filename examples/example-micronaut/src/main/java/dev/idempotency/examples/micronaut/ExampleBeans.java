package dev.idempotency.examples.micronaut;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.ShopRepository;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * The shared example wiring as beans. The engine is the one every example service builds
 * (examples-common), so all frameworks behave alike; an application of its own would instead let
 * the adapter build it from {@code idempotency.*} and a {@code Store} bean.
 */
@Factory
class ExampleBeans {

    /** Created with the context, before the server listens: the database is ready by then. */
    @Context
    @Bean(preDestroy = "close")
    ExampleApp exampleApp(ExampleSettings settings) {
        return ExampleApp.create(settings);
    }

    @Singleton
    ShopRepository shopRepository(ExampleApp app) {
        return app.repository();
    }

    /** Replaces the engine the adapter would build; closed with {@link ExampleApp}. */
    @Singleton
    @Requires(property = "idempotency.enabled", value = "true")
    IdempotencyEngine idempotencyEngine(ExampleApp app) {
        return app.engine().orElseThrow(() -> new IllegalStateException("idempotency is off"));
    }
}
