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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The response reaches the client only after its record is stored, and a retry that arrives
 * while the store is still writing finds the key in flight — it never runs the handler again.
 */
class StoredBeforeSentTest {

    private final CountDownLatch completing = new CountDownLatch(1);
    private final CountDownLatch gate = new CountDownLatch(1);
    private final AtomicInteger runs = new AtomicInteger();

    @Test
    void theClientWaitsForTheStoreAndARetryInBetweenGets409() throws Exception {
        Vertx vertx = Vertx.vertx();
        try (IdempotencyEngine engine = new IdempotencyEngine(new InterceptingStore(new InMemoryStore(), this::gateCompletion),
                IdempotencyConfig.defaults())) {
            IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
            Router router = Router.router(vertx);
            router.route().handler(BodyHandler.create()).handler(idempotency);
            router.post("/orders").handler(ctx -> ctx.end("order #" + runs.incrementAndGet()));
            HttpServer server = ConformanceRoutes.listen(vertx, idempotency, router);
            URI uri = URI.create("http://127.0.0.1:" + server.actualPort() + "/orders");
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest request = HttpRequest.newBuilder(uri).header("Idempotency-Key", "held-end")
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build();

            CompletableFuture<HttpResponse<String>> first = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
            assertThat(completing.await(10, TimeUnit.SECONDS)).as("the store was asked to complete").isTrue();
            Thread.sleep(200);
            assertThat(first).as("the client has nothing while the record is being stored").isNotDone();

            HttpResponse<String> retry = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(retry.statusCode()).isEqualTo(409);
            assertThat(runs.get()).isEqualTo(1);

            gate.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).body()).isEqualTo("order #1");
            HttpResponse<String> replay = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(replay.body()).isEqualTo("order #1");
            assertThat(runs.get()).isEqualTo(1);

            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            gate.countDown();
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** Completing a reservation waits at the gate, as a slow database would. */
    private void gateCompletion(String operation) {
        if (operation.equals("complete")) {
            completing.countDown();
            try {
                gate.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
