package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.InterceptingStore;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Where the record is completed: on the worker thread of a blocking handler that ended the
 * response (no hand-off to another pool and back), on the completion pool for a handler that
 * ended it on the event loop — and in both cases before the client sees the response.
 */
class CompletionThreadTest {

    private final List<String> completedOn = new CopyOnWriteArrayList<>();
    private final Map<String, String> handlerRanOn = new ConcurrentHashMap<>();

    @Test
    void aBlockingHandlersRecordIsCompletedOnItsOwnThreadAnEventLoopHandlersOnTheCompletionPool() throws Exception {
        Vertx vertx = Vertx.vertx();
        try (IdempotencyEngine engine = new IdempotencyEngine(new InterceptingStore(new InMemoryStore(), operation -> {
            if (operation.equals("complete")) {
                completedOn.add(Thread.currentThread().getName());
            }
        }), IdempotencyConfig.defaults())) {
            IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
            Router router = Router.router(vertx);
            router.route().handler(BodyHandler.create()).handler(idempotency);
            router.post("/blocking").blockingHandler(ctx -> {
                handlerRanOn.put("blocking", Thread.currentThread().getName());
                ctx.end("blocking");
            }, false);
            router.post("/event-loop").handler(ctx -> {
                handlerRanOn.put("event-loop", Thread.currentThread().getName());
                ctx.end("event loop");
            });
            HttpServer server = ConformanceRoutes.listen(vertx, idempotency, router);
            URI base = URI.create("http://127.0.0.1:" + server.actualPort());
            HttpClient http = HttpClient.newHttpClient();

            for (String path : List.of("/blocking", "/event-loop")) {
                HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).header("Idempotency-Key", "k" + path)
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
                HttpResponse<String> first = http.send(request, HttpResponse.BodyHandlers.ofString());
                // The record was stored before the response went out: the retry right after it replays.
                HttpResponse<String> retry = http.send(request, HttpResponse.BodyHandlers.ofString());
                assertThat(retry.headers().firstValue("Idempotent-Replayed")).as(path).hasValue("true");
                assertThat(retry.body()).isEqualTo(first.body());
            }

            assertThat(completedOn).hasSize(2);
            assertThat(handlerRanOn.get("blocking")).startsWith("vert.x-worker-thread-");
            assertThat(completedOn.get(0)).as("completed on the blocking handler's thread")
                    .isEqualTo(handlerRanOn.get("blocking"));
            assertThat(handlerRanOn.get("event-loop")).startsWith("vert.x-eventloop-thread-");
            assertThat(completedOn.get(1)).as("completed on the completion pool").startsWith("idempotency-completion-");
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
