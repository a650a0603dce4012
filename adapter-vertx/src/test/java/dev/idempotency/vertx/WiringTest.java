package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Wiring mistakes fail loudly (500, handler not run) instead of running unguarded. */
class WiringTest {

    private Vertx vertx;
    private IdempotencyEngine engine;
    private IdempotencyHandler idempotency;
    private final AtomicInteger runs = new AtomicInteger();

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
        idempotency = IdempotencyHandler.create(vertx, engine);
    }

    @AfterEach
    void stop() throws Exception {
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void withoutTheWrappedServerAGuardedRouteAnswers500() throws Exception {
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create()).handler(idempotency);
        router.post("/orders").handler(ctx -> ctx.end("order #" + runs.incrementAndGet()));
        HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get();

        assertThat(post(server).statusCode()).isEqualTo(500);
        assertThat(runs.get()).isZero();
    }

    @Test
    void withoutBodyHandlerAGuardedRouteAnswers500() throws Exception {
        Router router = Router.router(vertx);
        router.route().handler(idempotency);
        router.post("/orders").handler(ctx -> ctx.end("order #" + runs.incrementAndGet()));
        HttpServer server = ConformanceRoutes.listen(vertx, idempotency, router);

        assertThat(post(server).statusCode()).isEqualTo(500);
        assertThat(runs.get()).isZero();
    }

    private static HttpResponse<String> post(HttpServer server) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.actualPort() + "/orders"))
                .header("Idempotency-Key", "k1").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
