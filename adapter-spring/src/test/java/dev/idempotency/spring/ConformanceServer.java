package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.ConformanceApp;
import java.net.URI;
import org.springframework.context.ConfigurableApplicationContext;

/** {@link ConformanceApp}'s routes on embedded Tomcat with the filter, over an in-memory engine; one per test class. */
record ConformanceServer(IdempotencyEngine engine, ConformanceApp app, ConfigurableApplicationContext context, URI base)
        implements AutoCloseable {

    static ConformanceServer start() {
        IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
        ConformanceApp app = new ConformanceApp();
        ConfigurableApplicationContext context = SpringConformanceTest.run(engine, app);
        return new ConformanceServer(engine, app, context, SpringConformanceTest.baseUri(context));
    }

    @Override
    public void close() {
        context.close();
        engine.close();
    }
}
