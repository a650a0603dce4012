package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.OutageStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The health route docs/operations.md shows, line for line, so it keeps compiling and answering. */
class HealthRouteTest {

    // --- as in README.md, "Health"
    static String reasonOf(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof StorageUnavailableException u ? u.reason().name() : "UNEXPECTED";
    }
    // ---

    @Test
    void upWithAWorkingStoreAnd503WithTheReasonDuringAnOutage() throws Exception {
        OutageStore store = new OutageStore(new InMemoryStore());
        ExecutorService workers = Executors.newFixedThreadPool(2);
        Vertx vertx = Vertx.vertx();
        try (IdempotencyEngine engine = new IdempotencyEngine(AsyncStore.of(store, workers),
                IdempotencyConfig.defaults())) {
            Router router = Router.router(vertx);
            // --- as in README.md, "Health"
            router.get("/health").handler(ctx -> Future.fromCompletionStage(engine.checkStorageAsync(),
                            ctx.vertx().getOrCreateContext())
                    .onSuccess(ok -> ctx.json(new JsonObject().put("status", "UP")))
                    .onFailure(e -> ctx.response().setStatusCode(503).putHeader("Content-Type", "application/json")
                            .end(new JsonObject().put("status", "DOWN").put("reason", reasonOf(e)).encode())));
            // ---
            // The README's alternative for an engine over a blocking Store: the check on a worker thread.
            router.get("/health-blocking").handler(ctx -> ctx.vertx()
                    .executeBlocking(() -> { engine.checkStorage(); return null; }, false)
                    .onSuccess(ok -> ctx.json(new JsonObject().put("status", "UP")))
                    .onFailure(e -> ctx.response().setStatusCode(503).end(reasonOf(e))));
            HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + server.actualPort());
            HttpResponse<String> up = http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            store.outage(StorageUnavailableException.Reason.UNREACHABLE);
            HttpResponse<String> down = http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> downBlocking = http.send(HttpRequest.newBuilder(base.resolve("/health-blocking"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertThat(up.statusCode()).isEqualTo(200);
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(new JsonObject(down.body()).getString("reason")).isEqualTo("UNREACHABLE");
            assertThat(downBlocking.statusCode()).isEqualTo(503);
            assertThat(downBlocking.body()).isEqualTo("UNREACHABLE");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            workers.shutdownNow();
        }
    }
}
