package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The optimistic mode lets concurrent twins both run; when the later one answers 409 because the
 * first already finished, the engine hands back the stored response and the adapter sends it
 * instead of the 409.
 */
class OptimisticReplayTest {

    @Test
    void aTwinThatAnswers409GetsTheFirstResponseInstead() throws Exception {
        Vertx vertx = Vertx.vertx();
        InMemoryStore store = new InMemoryStore();
        RecordKey key = new RecordKey("default", "POST", "/orders", "twin");
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch secondStarted = new CountDownLatch(1);
        try (IdempotencyEngine engine = new IdempotencyEngine(store,
                IdempotencyConfig.builder().mode(Mode.OPTIMISTIC).build())) {
            IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
            Router router = Router.router(vertx);
            router.route().handler(BodyHandler.create()).handler(idempotency);
            router.post("/orders").blockingHandler(ctx -> {
                if (runs.incrementAndGet() == 1) {
                    await(secondStarted);
                    ctx.response().setStatusCode(201).putHeader("Location", "/orders/1").end("order #1");
                } else {
                    secondStarted.countDown();
                    // As an application with a unique constraint would: the first one's order exists.
                    while (store.find(key, Instant.now()).isEmpty()) {
                        sleep();
                    }
                    ctx.response().setStatusCode(409).end("duplicate order");
                }
            }, false);
            HttpServer server = ConformanceRoutes.listen(vertx, idempotency, router);
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + "/orders"))
                    .header("Idempotency-Key", "twin").POST(HttpRequest.BodyPublishers.ofString("{}")).build();

            CompletableFuture<HttpResponse<String>> first = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
            while (runs.get() < 1) {
                sleep();
            }
            HttpResponse<String> twin = http.send(request, HttpResponse.BodyHandlers.ofString());

            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            assertThat(runs.get()).isEqualTo(2);
            assertThat(twin.statusCode()).isEqualTo(201);
            assertThat(twin.body()).isEqualTo("order #1");
            assertThat(twin.headers().firstValue("Location")).hasValue("/orders/1");
            assertThat(twin.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            // The replacement reply is the engine's: it carries a Date, as every engine reply does.
            assertThat(twin.headers().allValues("Date")).hasSize(1);
            DateTimeFormatter.RFC_1123_DATE_TIME.parse(twin.headers().firstValue("Date").orElseThrow());
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            secondStarted.countDown();
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
