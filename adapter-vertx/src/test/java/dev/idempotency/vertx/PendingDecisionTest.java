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
import io.vertx.ext.web.handler.TimeoutHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A request answered by someone else (here a timeout) while its decision was still on a worker:
 * the handler does not run, and the key it reserved is given back instead of staying in flight.
 */
class PendingDecisionTest {

    @Test
    void aTimeoutDuringTheDecisionRunsNothingAndReleasesTheKey() throws Exception {
        Vertx vertx = Vertx.vertx();
        AtomicBoolean slowOnce = new AtomicBoolean(true);
        AtomicInteger runs = new AtomicInteger();
        InterceptingStore store = new InterceptingStore(new InMemoryStore(), operation -> {
            if (operation.equals("reserve") && slowOnce.getAndSet(false)) {
                sleep(400);
            }
        });
        try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.defaults())) {
            IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
            Router router = Router.router(vertx);
            router.route().handler(TimeoutHandler.create(100)).handler(BodyHandler.create()).handler(idempotency);
            router.post("/orders").handler(ctx -> ctx.end("order #" + runs.incrementAndGet()));
            HttpServer server = ConformanceRoutes.listen(vertx, idempotency, router);
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + "/orders"))
                    .header("Idempotency-Key", "pending").POST(HttpRequest.BodyPublishers.ofString("{}")).build();

            assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(503);
            sleep(600); // the slow decision comes back and finds the request answered

            HttpResponse<String> retry = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(retry.statusCode()).as("released, not in flight").isEqualTo(200);
            assertThat(retry.body()).isEqualTo("order #1");
            assertThat(runs.get()).isEqualTo(1);
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
