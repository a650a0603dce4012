package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the conformance suite does not reach: every way a Vert.x handler ends a response with its
 * body, failures that must not be stored, and wiring mistakes that must fail loudly (streamed
 * responses: {@link StreamedResponsesTest}). One server for the class; every test uses fresh keys.
 */
class IdempotencyHandlerTest {

    private static Vertx vertx;
    private static IdempotencyEngine engine;
    private static IdempotencyHandler idempotency;
    private static HttpServer server;
    private static URI base;
    private static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults());
        idempotency = IdempotencyHandler.create(vertx, engine);
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create());
        router.route().handler(idempotency);

        route(router, "/json", ctx -> {
            ctx.response().setStatusCode(201);
            ctx.json(new JsonObject().put("run", runs.get("/json").get()));
        });
        route(router, "/ctx-end", ctx -> ctx.end("ctx.end #" + runs.get("/ctx-end").get()));
        route(router, "/response-end", ctx -> ctx.response()
                .putHeader("Content-Type", "application/octet-stream")
                .end(Buffer.buffer(new byte[] {0, 1, 2, (byte) 0xff, (byte) runs.get("/response-end").get()})));
        route(router, "/send", ctx -> ctx.response().send("send #" + runs.get("/send").get()));
        route(router, "/other-thread", ctx -> CompletableFuture.runAsync(
                () -> ctx.response().putHeader("Location", "/elsewhere").end("ended off the event loop #"
                        + runs.get("/other-thread").get()),
                CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)));
        route(router, "/headers-end", ctx -> {
            // Vert.x runs these just before the head goes out; what they add is part of the response.
            ctx.addHeadersEndHandler(v -> ctx.response().putHeader("Location", "/added-late"));
            ctx.end("headers-end #" + runs.get("/headers-end").get());
        });
        route(router, "/execution", ctx -> ctx.end(String.valueOf(IdempotencyHandler.execution(ctx).isPresent())));
        route(router, "/slow", ctx -> vertx.setTimer(300, t -> ctx.end("slow #" + runs.get("/slow").get())));
        route(router, "/throw", ctx -> {
            throw new IllegalStateException("thrown on purpose");
        });
        route(router, "/fail-status", ctx -> ctx.fail(418));
        server = ConformanceRoutes.listen(vertx, idempotency, router);
        base = URI.create("http://127.0.0.1:" + server.actualPort());
    }

    private static void route(Router router, String path, Consumer<RoutingContext> handler) {
        runs.put(path, new AtomicInteger());
        router.post(path).handler(ctx -> {
            runs.get(path).incrementAndGet();
            handler.accept(ctx);
        });
    }

    @AfterAll
    static void stop() throws Exception {
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        idempotency.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static HttpResponse<byte[]> post(String path, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}")).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/json", "/ctx-end", "/response-end", "/send", "/other-thread", "/headers-end"})
    void everyWayOfEndingWithABodyIsCapturedByteExactAndReplayed(String path) throws Exception {
        int before = runs.get(path).get();
        String key = key();

        HttpResponse<byte[]> first = post(path, key);
        HttpResponse<byte[]> second = post(path, key);

        assertThat(first.statusCode()).isBetween(200, 201);
        assertThat(replayed(first)).isFalse();
        assertThat(replayed(second)).isTrue();
        assertThat(second.statusCode()).isEqualTo(first.statusCode());
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(second.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(runs.get(path).get() - before).isEqualTo(1);
    }

    @Test
    void headersAddedJustBeforeTheHeadAreReplayed() throws Exception {
        String key = key();
        post("/headers-end", key);
        assertThat(post("/headers-end", key).headers().firstValue("Location")).hasValue("/added-late");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/throw", "/fail-status"})
    void aFailedRequestReachesTheClientStoresNothingAndReleasesTheKey(String path) throws Exception {
        int before = runs.get(path).get();
        String key = key();

        HttpResponse<byte[]> first = post(path, key);
        HttpResponse<byte[]> second = post(path, key);

        assertThat(second.statusCode()).isEqualTo(first.statusCode());
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(replayed(second)).isFalse();
        assertThat(runs.get(path).get() - before).as("ran again: released, not 409").isEqualTo(2);
        if (path.equals("/fail-status")) {
            assertThat(first.statusCode()).isEqualTo(418);
        }
    }

    @Test
    void aClientThatHangsUpDoesNotLoseTheRecordItsRetryIsReplayed() throws Exception {
        String key = key();
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.getOutputStream().write(("POST /slow HTTP/1.1\r\nHost: localhost\r\nIdempotency-Key: " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}")
                    .getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (runs.get("/slow").get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        } // hangs up while the handler still runs
        int ran = runs.get("/slow").get();

        HttpResponse<byte[]> retry = post("/slow", key);
        if (!replayed(retry)) {
            // The retry may have arrived while the first was still in flight; it is stored by now.
            assertThat(retry.statusCode()).isEqualTo(409);
            Thread.sleep(500);
            retry = post("/slow", key);
        }
        assertThat(replayed(retry)).isTrue();
        assertThat(new String(retry.body(), StandardCharsets.UTF_8)).isEqualTo("slow #" + ran);
        assertThat(runs.get("/slow").get()).isEqualTo(ran);
    }

    @Test
    void aHandlerCanReachItsExecution() throws Exception {
        assertThat(new String(post("/execution", key()).body(), StandardCharsets.UTF_8)).isEqualTo("true");
        HttpResponse<String> withoutKey = http.send(HttpRequest.newBuilder(base.resolve("/execution"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(withoutKey.body()).isEqualTo("false");
    }

    @Test
    void requestsWithoutAKeyPassThroughUntouched() throws Exception {
        int before = runs.get("/json").get();
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/json"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        http.send(request, HttpResponse.BodyHandlers.discarding());
        HttpResponse<byte[]> second = http.send(request, HttpResponse.BodyHandlers.ofByteArray());

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).isFalse();
        assertThat(runs.get("/json").get() - before).isEqualTo(2);
    }
}
