package dev.idempotency.quarkus;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.util.OptionalInt;

/**
 * The shared HTTP suite against the Jakarta REST filters on Quarkus REST, bound as the module binds
 * them ({@link BoundFilters}): one application for the whole suite, {@link ConformanceTarget}
 * switched to each test's engine and app.
 */
@QuarkusTest
@QuarkusTestResource(PostgresSchemaResource.class)
class QuarkusConformanceTest extends HttpConformanceTest {

    @TestHTTPResource("/")
    URI base;

    /** Vert.x answers a target with a raw {@code #} with 404 before any filter runs; no handler runs. */
    @Override
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.of(404);
    }

    /** An {@code AsyncResponse} that times out is answered 503 by Quarkus REST. */
    @Override
    protected OptionalInt serverTimeoutStatus() {
        return OptionalInt.of(503);
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) {
        ConformanceTarget.use(engine, app);
        URI root = URI.create("http://127.0.0.1:" + base.getPort());
        return new RunningServer() {
            @Override
            public URI baseUri() {
                return root;
            }

            @Override
            public void close() {
            }
        };
    }
}
