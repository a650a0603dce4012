package dev.idempotency.jakartars;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import java.io.IOException;
import java.util.Optional;
import java.util.OptionalInt;
import org.glassfish.jersey.server.ResourceConfig;

/** The shared HTTP suite against the feature, on Jersey over Grizzly. */
class JerseyConformanceTest extends HttpConformanceTest {

    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.empty();
    }

    /** An {@code AsyncResponse} that times out is answered 503 by Jersey. */
    @Override
    protected OptionalInt serverTimeoutStatus() {
        return OptionalInt.of(503);
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) throws IOException {
        return JerseyServer.start(new ResourceConfig()
                .register(new ConformanceResource(app))
                .register(ConformanceResource.MappedAsCreated.class)
                .register(IdempotencyFeature.of(engine)));
    }
}
