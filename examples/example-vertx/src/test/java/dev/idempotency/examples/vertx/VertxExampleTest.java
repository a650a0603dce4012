package dev.idempotency.examples.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The examples' HTTP contract against the Vert.x service. */
class VertxExampleTest extends ExampleContractTest {

    /**
     * The example guards only its two POST routes, so a target that no route matches, such as
     * {@code /orders#x} (Vert.x Web keeps the {@code #x} in its normalized path), gets the router's
     * own 404 before the guard could refuse it; one that reaches a guarded route
     * ({@code /orders#/../payments}) gets the engine's 400.
     */
    @Override
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.of(404);
    }

    @Override
    protected RunningExample start(ExampleSettings settings) throws Exception {
        Vertx vertx = Vertx.vertx();
        ExampleApp app;
        HttpServer server;
        try {
            app = VertxExample.createApp(vertx, settings);
        } catch (RuntimeException e) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            throw e;
        }
        try {
            server = VertxExample.start(vertx, app).toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            app.close();
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            throw e;
        }
        return new RunningExample() {
            @Override
            public int port() {
                return server.actualPort();
            }

            @Override
            public String startupLine() {
                return app.startupLine("vertx", server.actualPort());
            }

            @Override
            public void close() throws Exception {
                // the server first (no request in flight), then the engine, store pools and database, then Vert.x
                server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                app.close();
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        };
    }

    /** A query string Vert.x cannot decode is the client's mistake: 400, with or without a key. */
    @Test
    void aMalformedQueryStringIsA400Problem() throws Exception {
        try (RunningExample example = start(settings(Map.of()))) {
            URI base = URI.create("http://127.0.0.1:" + example.port());
            for (String key : new String[] {null, UUID.randomUUID().toString()}) {
                RawResponse response = RawHttp.post(base, "/orders?delayMs=%zz", key,
                        "{\"item\":\"book\",\"quantity\":1}");

                assertThat(response.status()).as(response.toString()).isEqualTo(400);
                assertThat(response.header("Content-Type")).hasValue("application/problem+json");
                assertThat(new ObjectMapper().readTree(response.body()).path("code").asText())
                        .isEqualTo("validation_failed");
            }
        }
    }
}
