package dev.idempotency.micronaut;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shared HTTP suite against a real embedded Netty server with the filter installed, covering
 * the routes by name as an application would ({@code idempotency.paths}), not with the catch-all
 * default: the path spellings must be covered however the client spells them.
 */
class MicronautConformanceTest extends HttpConformanceTest {

    /**
     * Micronaut routes the path as sent: dot segments and escapes reach its router, and a
     * template route takes such a segment as its id.
     */
    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.of(PathSpelling.Routing.AS_SENT);
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) {
        ApplicationContext context = ApplicationContext.builder()
                .properties(Map.of(
                        "micronaut.server.port", -1,
                        "micronaut.server.host", "127.0.0.1",
                        "idempotency.enabled", true,
                        "idempotency.paths", List.of("/orders", "/orders/*", "/payments", "/reject", "/fail", "/text",
                                "/async", "/stream", "/large", "/mapped"),
                        "test.routes", "conformance"))
                .singletons(engine, app)
                .start();
        EmbeddedServer server = context.getBean(EmbeddedServer.class).start();
        URI base = URI.create("http://127.0.0.1:" + server.getPort());
        return new RunningServer() {
            @Override
            public URI baseUri() {
                return base;
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }
}
