package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.internal.BlockedThreadWarnings;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Streamed responses over real HTTP — chunks, a file, a piped stream: they stream, the key is
 * held until the response has really ended, a success is kept without its body (a retry gets 410)
 * and a stream that breaks releases the key. Over a blocking store and over a non-blocking one,
 * under the strict blocked-thread checker.
 */
@ParameterizedClass(name = "blocking store: {0}")
@ValueSource(booleans = {true, false})
class StreamedResponsesTest {

    private static final String FILE_CONTENT = "file content, ".repeat(1000);
    private static final String BODY = "{\"a\":1}";

    @Parameter
    boolean blockingStore;

    @TempDir
    static Path dir;

    private static BlockedThreadWarnings checker;
    private static Path file;
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> release = new CompletableFuture<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private IdempotencyEngine engine;
    private IdempotencyEngine againEngine;
    private IdempotencyHandler idempotency;
    private IdempotencyHandler againIdempotency;
    private HttpServer server;
    private URI base;

    @BeforeAll
    static void startVertx() throws Exception {
        file = Files.writeString(dir.resolve("download.txt"), FILE_CONTENT);
        checker = new BlockedThreadWarnings();
    }

    @AfterAll
    static void stopVertx() throws Exception {
        checker.close();
    }

    @BeforeEach
    void start() throws Exception {
        Vertx vertx = checker.vertx();
        engine = engine(IdempotencyConfig.defaults());
        againEngine = engine(IdempotencyConfig.builder().runAgainWhenNotStored(true).build());
        idempotency = IdempotencyHandler.create(vertx, engine);
        againIdempotency = IdempotencyHandler.create(vertx, againEngine, "idempotency-again", 4);
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create());
        router.route("/again/*").handler(againIdempotency);
        router.route().handler(idempotency);

        route(router, "/chunked", (ctx, n) -> {
            HttpServerResponse response = ctx.response().setChunked(true)
                    .putHeader("Content-Type", "text/plain").putHeader("Location", "/streams/" + n);
            response.write("one\n");
            vertx.setTimer(150, t -> {
                response.write("two\n");
                vertx.setTimer(150, t2 -> response.end("three\n"));
            });
        });
        BiConsumer<RoutingContext, Integer> gated = (ctx, n) -> {
            ctx.response().setChunked(true).putHeader("Location", "/streams/" + n).write("first\n");
            Future.fromCompletionStage(release, vertx.getOrCreateContext()).onComplete(v -> ctx.response().end("last\n"));
        };
        route(router, "/gated", gated);
        route(router, "/again/gated", gated);
        route(router, "/ticks", (ctx, n) -> {
            // Ticks on whether or not anybody still listens, then ends: a handler that does not watch its writes.
            HttpServerResponse response = ctx.response().setChunked(true);
            AtomicInteger ticks = new AtomicInteger();
            response.write("tick\n");
            vertx.setPeriodic(50, id -> {
                if (ticks.incrementAndGet() < 40) {
                    response.write("tick\n");
                } else {
                    vertx.cancelTimer(id);
                    response.end("done\n");
                }
            });
        });
        route(router, "/chunk-then-fail", (ctx, n) -> {
            ctx.response().setChunked(true).write("partial\n");
            vertx.setTimer(50, t -> ctx.fail(new IllegalStateException("failed mid-stream on purpose")));
        });
        route(router, "/chunk-then-fail-reset", (ctx, n) -> {
            ctx.response().setChunked(true).write("partial\n");
            vertx.setTimer(50, t -> ctx.fail(new IllegalStateException("failed mid-stream on purpose")));
        });
        router.post("/chunk-then-fail-reset").failureHandler(ctx -> ctx.response().reset());
        route(router, "/send-failing-stream", (ctx, n) -> ctx.response().send(new FailingStream(vertx)));
        route(router, "/send-file", (ctx, n) -> vertx.setTimer(100, t -> ctx.response()
                .putHeader("Location", "/files/" + n).sendFile(file.toString())));
        route(router, "/send-missing-file", (ctx, n) -> ctx.response()
                .sendFile(dir.resolve("missing.txt").toString()).onFailure(ctx::fail));
        route(router, "/send-stream", (ctx, n) -> vertx.setTimer(100, t -> vertx.fileSystem()
                .open(file.toString(), new OpenOptions().setRead(true))
                .onSuccess(f -> ctx.response().putHeader("Location", "/files/" + n).send(f))));
        route(router, "/pipe-to", (ctx, n) -> vertx.setTimer(100, t -> vertx.fileSystem()
                .open(file.toString(), new OpenOptions().setRead(true))
                .onSuccess(f -> {
                    ctx.response().setChunked(true).putHeader("Location", "/files/" + n);
                    f.pipeTo(ctx.response());
                })));

        server = ConformanceRoutes.listen(vertx, idempotency, router);
        base = URI.create("http://127.0.0.1:" + server.actualPort());
    }

    private IdempotencyEngine engine(IdempotencyConfig config) {
        InMemoryStore memory = new InMemoryStore();
        IdempotencyEngine built = blockingStore ? new IdempotencyEngine(memory, config)
                : new IdempotencyEngine(AsyncStore.onCallingThread(memory), config);
        assertThat(built.blocksCaller()).isEqualTo(blockingStore);
        return built;
    }

    private void route(Router router, String path, BiConsumer<RoutingContext, Integer> handler) {
        AtomicInteger count = runs.computeIfAbsent(path, p -> new AtomicInteger());
        router.post(path).handler(ctx -> handler.accept(ctx, count.incrementAndGet()));
    }

    @AfterEach
    void stop() throws Exception {
        release.complete(null);
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        idempotency.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        againIdempotency.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        engine.close();
        againEngine.close();
        // Over a non-blocking store the engine runs on the event loop by design, and a starved CPU can
        // make its microseconds look like 100 ms there: only an event loop caught waiting counts.
        assertThat(checker.takeWarnings()).as("event loop blocked")
                .noneMatch(blockingStore ? BlockedThreadWarnings.Warning::inEngineOrStore : BlockedThreadWarnings.Warning::waiting);
    }

    @Test
    void theFirstChunkReachesTheClientBeforeTheHandlerEnds() throws Exception {
        String key = key();
        HttpResponse<InputStream> response = http.send(request("/gated", key), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            assertThat(new String(body.readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("first\n");
            assertThat(release).as("the handler has not ended yet").isNotDone();
            release.complete(null);
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("last\n");
        }

        assertNotStored(post("/gated", key), "/streams/1");
        assertThat(runs.get("/gated")).hasValue(1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/chunked", "/send-file", "/send-stream", "/pipe-to"})
    void concurrentDuplicatesAndALaterRetryRunItOnce(String path) throws Exception {
        String key = key();
        List<HttpResponse<byte[]>> responses = concurrently(20, path, key);
        // A file's last byte leaves before its record is completed (nothing holds back a sendFile's
        // end), so a retry sent at once may meet the key in flight; every other end waits for the record.
        HttpResponse<byte[]> retry = path.equals("/send-file") ? postUntilNot409(path, key) : post(path, key);

        assertThat(runs.get(path)).hasValue(1);
        List<HttpResponse<byte[]>> originals = responses.stream().filter(r -> r.statusCode() == 200).toList();
        assertThat(originals).hasSize(1);
        assertThat(new String(originals.get(0).body(), StandardCharsets.UTF_8))
                .isEqualTo(path.equals("/chunked") ? "one\ntwo\nthree\n" : FILE_CONTENT);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(200, 409, 410));
        assertNotStored(retry, originals.get(0).headers().firstValue("Location").orElseThrow());
    }

    @Test
    void optingInToRunAgainReleasesAStreamOnlyAtItsEnd() throws Exception {
        String key = key();
        HttpResponse<InputStream> first = http.send(request("/again/gated", key), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = first.body()) {
            assertThat(new String(body.readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("first\n");
            List<HttpResponse<byte[]>> duplicates = concurrently(20, "/again/gated", key);
            assertThat(duplicates).as("held while it streams").allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(409));
            release.complete(null);
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("last\n");
        }

        HttpResponse<byte[]> retry = postUntilNot409("/again/gated", key);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(replayed(retry)).isFalse();
        assertThat(runs.get("/again/gated")).as("released at the end, so the retry ran again").hasValue(2);
    }

    @Test
    void aFileThatCannotBeSentReleasesTheKey() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = post("/send-missing-file", key);
        HttpResponse<byte[]> retry = post("/send-missing-file", key);

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(500);
        assertThat(replayed(retry)).isFalse();
        assertThat(runs.get("/send-missing-file")).as("released, so the retry ran again").hasValue(2);
    }

    @Test
    void aHandlerFailingMidStreamReleasesTheKeyWhenTheConnectionCloses() throws Exception {
        // Vert.x Web cannot answer a failure once the head is out (its setStatusCode throws), so the
        // response stays open until the client gives up: the key is released then.
        String key = key();
        try (Socket socket = send("/chunk-then-fail", key, "partial")) {
            Thread.sleep(200);
            socket.setSoLinger(true, 0);
        }

        // The retry's own run fails the same way, so only its head is read.
        HttpResponse<InputStream> retry = headUntilNot409("/chunk-then-fail", key);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(replayed(retry)).isFalse();
        assertThat(runs.get("/chunk-then-fail")).as("released, so the retry ran again").hasValue(2);
    }

    @Test
    void aFailureHandlerThatResetsReleasesTheKeyAtOnce() throws Exception {
        String key = key();
        try (Socket socket = send("/chunk-then-fail-reset", key, "partial")) {
            HttpResponse<InputStream> retry = headUntilNot409("/chunk-then-fail-reset", key);
            assertThat(retry.statusCode()).isEqualTo(200);
            assertThat(runs.get("/chunk-then-fail-reset")).as("released, so the retry ran again").hasValue(2);
        }
    }

    @Test
    void aStreamWhoseSourceFailsReleasesTheKey() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = post("/send-failing-stream", key);
        HttpResponse<byte[]> retry = post("/send-failing-stream", key);

        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("before the failure\n");
        assertThat(replayed(retry)).isFalse();
        assertThat(runs.get("/send-failing-stream")).as("released, so the retry ran again").hasValue(2);
    }

    @Test
    void aConnectionClosedMidStreamReleasesTheKey() throws Exception {
        String key = key();
        try (Socket socket = send("/ticks", key, "tick")) {
            socket.setSoLinger(true, 0); // a reset, not a polite close
        }

        // The first handler still ticks for about two seconds; its key is free once the server saw the close.
        HttpResponse<byte[]> retry = postUntilNot409("/ticks", key);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(replayed(retry)).isFalse();
        assertThat(new String(retry.body(), StandardCharsets.UTF_8)).startsWith("tick\n").endsWith("done\n");
        assertThat(runs.get("/ticks")).as("released, so the retry ran again").hasValue(2);
    }

    // ---------------------------------------------------------------- helpers

    private static void assertNotStored(HttpResponse<byte[]> retry, String location) {
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("Location")).hasValue(location);
        assertThat(new String(retry.body(), StandardCharsets.UTF_8)).contains("idempotency_response_not_stored");
    }

    private HttpRequest request(String path, String key) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
    }

    private HttpResponse<byte[]> post(String path, String key) throws Exception {
        // The request timeout covers only the head: a body that never ends would hang the test.
        return http.sendAsync(request(path, key), HttpResponse.BodyHandlers.ofByteArray()).get(20, TimeUnit.SECONDS);
    }

    /** Posts, and again every 20 ms while the answer is 409 (the key still in flight), for up to 5 s. */
    private HttpResponse<byte[]> postUntilNot409(String path, String key) throws Exception {
        HttpResponse<byte[]> response = post(path, key);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (response.statusCode() == 409 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            response = post(path, key);
        }
        return response;
    }

    /** {@link #postUntilNot409}, reading only the head of each answer. */
    private HttpResponse<InputStream> headUntilNot409(String path, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        HttpResponse<InputStream> response;
        do {
            response = http.send(request(path, key), HttpResponse.BodyHandlers.ofInputStream());
            response.body().close();
        } while (response.statusCode() == 409 && System.nanoTime() < deadline);
        return response;
    }

    /** A raw HTTP/1.1 POST whose response has been read up to {@code expected}; the caller closes it. */
    private Socket send(String path, String key, String expected) throws Exception {
        Socket socket = new Socket(base.getHost(), base.getPort());
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nIdempotency-Key: " + key
                + "\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n" + BODY).getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        String received = "";
        while (!received.contains(expected)) {
            byte[] chunk = new byte[256];
            int n = socket.getInputStream().read(chunk);
            assertThat(n).as("the stream started").isPositive();
            received += new String(chunk, 0, n, StandardCharsets.ISO_8859_1);
        }
        return socket;
    }

    private List<HttpResponse<byte[]>> concurrently(int n, String path, String key) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<java.util.concurrent.Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    return post(path, key);
                }));
            }
            go.countDown();
            List<HttpResponse<byte[]>> responses = new ArrayList<>();
            for (java.util.concurrent.Future<HttpResponse<byte[]>> f : futures) {
                responses.add(f.get(30, TimeUnit.SECONDS));
            }
            return responses;
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }

    /** A source that sends one buffer, then fails. */
    private static final class FailingStream implements ReadStream<Buffer> {

        private final Vertx vertx;
        private Handler<Buffer> handler;
        private Handler<Throwable> exceptionHandler;
        private boolean started;

        FailingStream(Vertx vertx) {
            this.vertx = vertx;
        }

        @Override
        public ReadStream<Buffer> handler(Handler<Buffer> handler) {
            this.handler = handler;
            return this;
        }

        @Override
        public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
            this.exceptionHandler = handler;
            return this;
        }

        @Override
        public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
            return this;
        }

        @Override
        public ReadStream<Buffer> pause() {
            return this;
        }

        @Override
        public ReadStream<Buffer> fetch(long amount) {
            return resume();
        }

        @Override
        public ReadStream<Buffer> resume() {
            if (!started && handler != null) {
                started = true;
                handler.handle(Buffer.buffer("before the failure\n"));
                vertx.setTimer(50, t -> exceptionHandler.handle(new IllegalStateException("source failed on purpose")));
            }
            return this;
        }
    }
}
