package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Over an engine on an {@link AsyncStore} the handler uses the engine's stages as they are: every
 * store call is made on the request's event loop, none on the worker pools.
 */
class AsyncStoreTest {

    private Vertx vertx;
    private IdempotencyEngine engine;
    private final List<String> storeThreads = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        // Runs each store call where it is made, and notes the thread.
        Executor recording = task -> {
            storeThreads.add(Thread.currentThread().getName());
            task.run();
        };
        engine = new IdempotencyEngine(AsyncStore.of(new InMemoryStore(), recording), IdempotencyConfig.defaults());
    }

    @AfterEach
    void stop() throws Exception {
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void storeCallsRunOnTheEventLoopAndTheReplayWorks() throws Exception {
        IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create());
        router.post("/orders").handler(idempotency).handler(ctx -> ctx.response().setStatusCode(201)
                .end("order #" + runs.incrementAndGet()));
        HttpServer server = ConformanceRoutes.listen(vertx, idempotency, router);

        HttpResponse<String> first = post(server);
        HttpResponse<String> second = post(server);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).isEqualTo("order #1");
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.body()).as("replayed").isEqualTo("order #1");
        assertThat(runs.get()).isEqualTo(1);
        // reserve and complete for the first request, reserve (lost) for the replay
        assertThat(storeThreads).hasSizeGreaterThanOrEqualTo(3)
                .allSatisfy(name -> assertThat(name).startsWith("vert.x-eventloop-thread-"));
    }

    private static HttpResponse<String> post(HttpServer server) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.actualPort() + "/orders"))
                .header("Idempotency-Key", "k1").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
