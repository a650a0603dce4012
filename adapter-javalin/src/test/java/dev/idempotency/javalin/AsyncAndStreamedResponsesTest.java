package dev.idempotency.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reservation is held until the response has really ended — a {@code ctx.future}, an
 * {@code InputStream} result Javalin writes after the handlers, a response flushed to the client
 * chunk by chunk, an event stream — and each runs its handler once.
 */
class AsyncAndStreamedResponsesTest {

    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";
    private static final long WAIT_SECONDS = 30;

    private final HttpClient http = HttpClient.newHttpClient();
    private final InMemoryStore store = new InMemoryStore();
    private final AtomicInteger runs = new AtomicInteger();
    private IdempotencyEngine engine;
    private Javalin server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
        if (engine != null) {
            engine.close();
        }
    }

    private void start(Consumer<JavalinConfig> routes) {
        start(UnaryOperator.identity(), routes);
    }

    private void start(UnaryOperator<IdempotencyConfig.Builder> config, Consumer<JavalinConfig> routes) {
        engine = new IdempotencyEngine(store, config.apply(IdempotencyConfig.builder()).build());
        server = Javalin.create(cfg -> {
            cfg.registerPlugin(new IdempotencyPlugin(engine));
            routes.accept(cfg);
        }).start("127.0.0.1", 0);
    }

    private HttpRequest.Builder request(String path, String key) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Idempotency-Key", key).timeout(Duration.ofSeconds(WAIT_SECONDS));
    }

    private CompletableFuture<HttpResponse<byte[]>> postAsync(String path, String key) {
        return http.sendAsync(request(path, key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> post(String path, String key) throws Exception {
        return postAsync(path, key).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** Twenty requests with one key at once; {@code whileRunning} runs once all but the first are answered. */
    private List<HttpResponse<byte[]>> twenty(String path, String key, Runnable whileRunning) throws Exception {
        CountDownLatch answered = new CountDownLatch(19);
        List<CompletableFuture<HttpResponse<byte[]>>> sent = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sent.add(postAsync(path, key).whenComplete((response, failure) -> answered.countDown()));
        }
        assertThat(answered.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("19 duplicates answered").isTrue();
        whileRunning.run();
        List<HttpResponse<byte[]>> responses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<byte[]>> response : sent) {
            responses.add(response.get(WAIT_SECONDS, TimeUnit.SECONDS));
        }
        return responses;
    }

    /** The one response of the handler (with {@code status}); the 19 duplicates got 409 in progress. */
    private static HttpResponse<byte[]> theOneThatRan(List<HttpResponse<byte[]>> responses, int status) {
        assertThat(responses).extracting(HttpResponse::statusCode).as("in flight until the response was sent")
                .containsOnly(status, 409).filteredOn(code -> code == 409).hasSize(19);
        return responses.stream().filter(r -> r.statusCode() == status).findFirst().orElseThrow();
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static void assertToldApplied(HttpResponse<byte[]> retry, String location) {
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(text(retry)).contains("\"code\":\"idempotency_response_not_stored\"");
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("Location")).hasValue(location);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the handler");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aFutureRunsOnceAndItsRetryReplaysItByteForByte() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(cfg -> cfg.routes.post("/orders", ctx -> {
            int run = runs.incrementAndGet();
            ctx.future(() -> CompletableFuture.runAsync(() -> await(release)).thenAccept(done -> ctx.status(201)
                    .header("Location", "/orders/" + run).json(Map.of("id", run, "status", "created"))));
        }));
        String key = "key-" + UUID.randomUUID();

        List<HttpResponse<byte[]>> responses = twenty("/orders", key, release::countDown);
        HttpResponse<byte[]> retry = post("/orders", key);

        assertThat(runs).hasValue(1);
        HttpResponse<byte[]> original = theOneThatRan(responses, 201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(original.body());
        assertThat(retry.headers().firstValue("Location")).hasValue("/orders/1");
    }

    /** A result stream is written by Javalin after every handler: the key stays in flight until it has been. */
    @Test
    void anInputStreamResultIsHeldUntilWrittenRunsOnceAndItsRetryIsToldItWasApplied() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(cfg -> cfg.routes.post("/reports", ctx -> ctx.status(201)
                .header("Location", "/reports/" + runs.incrementAndGet())
                .contentType("text/csv").result(slowStream(release, "a,b\n", "1,2\n"))));
        String key = "key-" + UUID.randomUUID();

        List<HttpResponse<byte[]>> responses = twenty("/reports", key, release::countDown);
        HttpResponse<byte[]> retry = post("/reports", key);

        assertThat(runs).hasValue(1);
        HttpResponse<byte[]> original = theOneThatRan(responses, 201);
        assertThat(text(original)).isEqualTo("a,b\n1,2\n");
        assertToldApplied(retry, "/reports/1");
    }

    /** With the opt-in to run again, the key is released only after the stream was written, never while it is. */
    @Test
    void runningAgainWhenNotStoredWaitsUntilAnInputStreamResultIsWritten() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(c -> c.runAgainWhenNotStored(true), cfg -> cfg.routes.post("/reports", ctx -> {
            int run = runs.incrementAndGet();
            ctx.result(slowStream(run == 1 ? release : new CountDownLatch(0), "run " + run + "\n", "done\n"));
        }));
        String key = "key-" + UUID.randomUUID();

        CompletableFuture<HttpResponse<byte[]>> first = postAsync("/reports", key);
        awaitRuns(1);
        HttpResponse<byte[]> duplicate = post("/reports", key);
        release.countDown();

        assertThat(duplicate.statusCode()).as("not run again while the first is still streaming").isEqualTo(409);
        assertThat(text(first.get(WAIT_SECONDS, TimeUnit.SECONDS))).isEqualTo("run 1\ndone\n");
        assertThat(text(post("/reports", key))).as("released once written").isEqualTo("run 2\ndone\n");
    }

    @Test
    void aFlushedStreamRunsOnceAndItsRetryIsToldItWasApplied() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(cfg -> cfg.routes.post("/stream", ctx -> {
            int run = runs.incrementAndGet();
            ctx.contentType("text/plain; charset=utf-8").header("Location", "/streams/" + run);
            writeTwoChunks(ctx, release);
        }));
        String key = "key-" + UUID.randomUUID();

        List<HttpResponse<byte[]>> responses = twenty("/stream", key, release::countDown);
        HttpResponse<byte[]> retry = post("/stream", key);

        assertThat(runs).hasValue(1);
        HttpResponse<byte[]> original = theOneThatRan(responses, 200);
        assertThat(text(original)).isEqualTo("chunk 1\nchunk 2\n");
        assertToldApplied(retry, "/streams/1");
    }

    /** The same from a future's thread: Javalin runs the after handlers when the future completes. */
    @Test
    void aStreamWrittenFromAFutureRunsOnceAndItsRetryIsToldItWasApplied() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(cfg -> cfg.routes.post("/stream", ctx -> {
            int run = runs.incrementAndGet();
            ctx.contentType("text/plain; charset=utf-8").header("Location", "/streams/" + run);
            ctx.future(() -> CompletableFuture.runAsync(() -> {
                try {
                    writeTwoChunks(ctx, release);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }));
        }));
        String key = "key-" + UUID.randomUUID();

        List<HttpResponse<byte[]>> responses = twenty("/stream", key, release::countDown);
        HttpResponse<byte[]> retry = post("/stream", key);

        assertThat(runs).hasValue(1);
        theOneThatRan(responses, 200);
        assertToldApplied(retry, "/streams/1");
    }

    @Test
    void aFlushedChunkReachesTheClientBeforeTheHandlerFinishes() throws Exception {
        CountDownLatch firstChunkRead = new CountDownLatch(1);
        AtomicReference<Boolean> handlerSawTheRead = new AtomicReference<>();
        start(cfg -> cfg.routes.post("/stream", ctx -> {
            OutputStream out = ctx.res().getOutputStream();
            out.write("chunk 1\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            handlerSawTheRead.set(firstChunkRead.await(WAIT_SECONDS, TimeUnit.SECONDS));
            out.write("chunk 2\n".getBytes(StandardCharsets.UTF_8));
        }));

        HttpRequest post = request("/stream", "key-" + UUID.randomUUID()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build();
        HttpResponse<InputStream> response = http.send(post, HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader body = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            assertThat(body.readLine()).isEqualTo("chunk 1");
            firstChunkRead.countDown();
            assertThat(body.readLine()).isEqualTo("chunk 2");
        }
        assertThat(handlerSawTheRead.get()).as("the client read chunk 1 while the handler was still running").isTrue();
    }

    /** An event stream holds its key until it closes; a retry is then told it was applied. */
    @Test
    void anEventStreamHoldsItsKeyUntilItCloses() throws Exception {
        AtomicReference<SseClient> open = new AtomicReference<>();
        CountDownLatch connected = new CountDownLatch(1);
        start(c -> c.methods("GET", "POST"), cfg -> cfg.routes.sse("/events", client -> {
            runs.incrementAndGet();
            client.keepAlive();
            open.set(client);
            client.sendEvent("hello");
            connected.countDown();
        }));
        String key = "key-" + UUID.randomUUID();
        HttpRequest events = request("/events", key).header("Accept", "text/event-stream").GET().build();

        HttpResponse<InputStream> first = http.send(events, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        HttpResponse<byte[]> duplicate = http.send(events, HttpResponse.BodyHandlers.ofByteArray());
        open.get().close();
        String received = new String(first.body().readAllBytes(), StandardCharsets.UTF_8);
        HttpResponse<byte[]> retry = http.send(events, HttpResponse.BodyHandlers.ofByteArray());

        assertThat(received).contains("data: hello");
        assertThat(duplicate.statusCode()).as("in flight while the stream is open").isEqualTo(409);
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(runs).hasValue(1);
    }

    private void awaitRuns(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (runs.get() < expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(runs).hasValue(expected);
    }

    /** Writes chunk 1 and flushes it to the client, waits for {@code release}, then writes chunk 2. */
    private static void writeTwoChunks(Context ctx, CountDownLatch release) throws IOException {
        OutputStream out = ctx.res().getOutputStream();
        out.write("chunk 1\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        await(release);
        out.write("chunk 2\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** A stream whose first part is read at once and whose rest only once {@code release} opens. */
    private static InputStream slowStream(CountDownLatch release, String first, String rest) {
        InputStream later = new InputStream() {
            private InputStream bytes;

            @Override
            public int read() throws IOException {
                if (bytes == null) {
                    await(release);
                    bytes = new ByteArrayInputStream(rest.getBytes(StandardCharsets.UTF_8));
                }
                return bytes.read();
            }
        };
        return new SequenceInputStream(new ByteArrayInputStream(first.getBytes(StandardCharsets.UTF_8)), later);
    }
}
