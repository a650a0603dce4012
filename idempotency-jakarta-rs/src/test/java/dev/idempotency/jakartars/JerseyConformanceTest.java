package dev.idempotency.jakartars;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import java.io.IOException;
import java.util.Optional;
import org.glassfish.jersey.server.ResourceConfig;

/** The shared HTTP suite against the feature, on Jersey over Grizzly. */
class JerseyConformanceTest extends HttpConformanceTest {

    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.empty();
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) throws IOException {
        return JerseyServer.start(new ResourceConfig()
                .register(new ConformanceResource(app))
                .register(IdempotencyFeature.of(engine)));
    }
}
