package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * Spring MVC's asynchronous and streamed return values under a key, over HTTP on embedded Tomcat.
 * Each handler waits on a gate the test opens, so "while it runs" is not a matter of timing: a
 * request and 19 duplicates sent while its asynchronous part runs (20 concurrent) and a later retry
 * run it once; the duplicates get 409, the retry a byte-exact replay (buffered answers) or 410
 * (streamed ones); an SSE event reaches the client before the handler ends; a failed or timed-out
 * handler releases the key.
 */
class AsyncResponseTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ExecutorService WORKERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "async-response-test");
        t.setDaemon(true);
        return t;
    });
    static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
    static final Map<String, CountDownLatch> GATES = new ConcurrentHashMap<>();
    /** Counted down when a handler's asynchronous part (the work after the controller method returned) starts. */
    static volatile CountDownLatch STARTED;

    /** A return value of Spring MVC's, at its path; captured ones are buffered, the others streamed. */
    enum Shape {
        CALLABLE("/callable", true),
        DEFERRED_RESULT("/deferred", true),
        WEB_ASYNC_TASK("/task", true),
        COMPLETABLE_FUTURE("/future", true),
        SSE_EMITTER("/sse", false),
        STREAMING_RESPONSE_BODY("/streaming", false);

        final String path;
        final boolean captured;

        Shape(String path, boolean captured) {
            this.path = path;
            this.captured = captured;
        }
    }

    private ConfigurableApplicationContext context;
    private URI base;

    @BeforeEach
    void reset() {
        RUNS.clear();
        GATES.clear();
        GATES.put("main", new CountDownLatch(1));
        STARTED = new CountDownLatch(1);
    }

    private void start(String... settings) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--idempotency.enabled=true",
                // H2 is on the test classpath, so Boot makes a DataSource; this test keeps records in memory
                "--idempotency.jdbc.enabled=false"));
        args.addAll(List.of(settings));
        context = new SpringApplication(AsyncService.class).run(args.toArray(String[]::new));
        base = SpringConformanceTest.baseUri(context);
    }

    @AfterEach
    void stop() {
        GATES.values().forEach(CountDownLatch::countDown);
        if (context != null) {
            context.close();
        }
    }

    private HttpRequest request(String target, String key) {
        return HttpRequest.newBuilder(base.resolve(target)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build();
    }

    private HttpResponse<byte[]> post(String target, String key) throws Exception {
        return HTTP.send(request(target, key), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static int runs(String path) {
        return RUNS.computeIfAbsent(path, p -> new AtomicInteger()).get();
    }

    private static void awaitRuns(String path, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (runs(path) < n) {
            assertThat(System.nanoTime()).as("%s ran %d times", path, runs(path)).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static JsonNode json(HttpResponse<byte[]> response) throws Exception {
        return JSON.readTree(response.body());
    }

    private static void assertProblem(HttpResponse<byte[]> response, int status, String code) throws Exception {
        assertThat(response.statusCode()).as(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo(status);
        assertThat(json(response).path("code").asText()).isEqualTo(code);
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void twentyConcurrentDuplicatesAndALaterRetryRunTheHandlerOnce(Shape shape) throws Exception {
        start();
        String key = UUID.randomUUID().toString();
        CompletableFuture<HttpResponse<byte[]>> first = HTTP.sendAsync(request(shape.path, key),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(STARTED.await(20, TimeUnit.SECONDS)).as("the handler's asynchronous part started").isTrue();
        List<CompletableFuture<HttpResponse<byte[]>>> duplicates = new ArrayList<>();
        for (int i = 0; i < 19; i++) {
            duplicates.add(HTTP.sendAsync(request(shape.path, key), HttpResponse.BodyHandlers.ofByteArray()));
        }
        for (CompletableFuture<HttpResponse<byte[]>> duplicate : duplicates) {
            assertProblem(duplicate.get(30, TimeUnit.SECONDS), 409, "idempotency_request_in_progress");
        }

        assertThat(first).as("the first request waits on its handler").isNotDone();
        GATES.get("main").countDown();
        HttpResponse<byte[]> original = first.get(30, TimeUnit.SECONDS);
        HttpResponse<byte[]> retry = post(shape.path, key);

        assertThat(original.statusCode()).isEqualTo(shape.captured ? 201 : 200);
        assertThat(original.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(new String(original.body(), StandardCharsets.UTF_8)).contains("run 1").contains("end");
        String location = original.headers().firstValue("Location").orElseThrow();
        if (shape.captured) {
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(retry.body()).isEqualTo(original.body());
            assertThat(retry.headers().firstValue("Location")).hasValue(location);
        } else {
            assertProblem(retry, 410, "idempotency_response_not_stored");
            assertThat(retry.headers().firstValue("Location")).hasValue(location);
        }
        assertThat(runs(shape.path)).isEqualTo(1);
    }

    @Test
    void anSseEventReachesTheClientWhileTheHandlerStillRuns() throws Exception {
        start();
        HttpResponse<InputStream> response = HTTP.sendAsync(request("/sse", UUID.randomUUID().toString()),
                HttpResponse.BodyHandlers.ofInputStream()).get(10, TimeUnit.SECONDS);
        BufferedReader events = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        String first = CompletableFuture.supplyAsync(() -> readLine(events), WORKERS).get(10, TimeUnit.SECONDS);

        assertThat(first).isEqualTo("data:run 1");
        assertThat(GATES.get("main").getCount()).as("the handler still waits").isEqualTo(1);
        GATES.get("main").countDown();
        List<String> rest = events.lines().toList();
        assertThat(rest).contains("data:end");
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Shape.class, names = {"CALLABLE", "COMPLETABLE_FUTURE", "SSE_EMITTER"})
    void aHandlerThatFailsReleasesTheKey(Shape shape) throws Exception {
        start();
        String key = UUID.randomUUID().toString();
        GATES.put("main", new CountDownLatch(0));
        int failed = statusOf(shape.path + "?fail=true", key);
        HttpResponse<byte[]> retry = post(shape.path, key);

        assertThat(failed).as("a stream that fails is cut short after its 200").isEqualTo(shape.captured ? 500 : -1);
        assertThat(retry.statusCode()).isEqualTo(shape.captured ? 201 : 200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(runs(shape.path)).as("the retry ran again").isEqualTo(2);
    }

    /** The status of the answer, or -1 when its body broke off. */
    private int statusOf(String target, String key) throws Exception {
        try {
            return post(target, key).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Spring answers a timeout while the handler's work may still run: the key is not freed for a second run. */
    @Test
    void aHandlerThatTimesOutKeepsItsKeyInFlight() throws Exception {
        start();
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> timedOut = post("/deferred?timeoutMs=300", key);
        HttpResponse<byte[]> retry = post("/deferred?timeoutMs=300", key);

        assertThat(timedOut.statusCode()).isEqualTo(503);
        assertThat(retry.statusCode()).as("in progress until the lease ends").isEqualTo(409);
        assertThat(runs("/deferred")).as("never run a second time alongside the first").isEqualTo(1);
    }

    /**
     * The optimistic mode: two requests with one key both run; the second's handler answers 409
     * after the first stored its 201, so the engine replaces that answer with the stored one — which
     * it can, the asynchronous answer being still held when it finishes.
     */
    @Test
    void anAsynchronousAnswerTheEngineReplacesIsReplacedBeforeItIsSent() throws Exception {
        start("--idempotency.mode=optimistic");
        String key = UUID.randomUUID().toString();
        CompletableFuture<HttpResponse<byte[]>> first = HTTP.sendAsync(request("/callable", key),
                HttpResponse.BodyHandlers.ofByteArray());
        awaitRuns("/callable", 1);
        // The same request (a twin: headers outside the fingerprint tell its handler to answer 409).
        HttpRequest twin = HttpRequest.newBuilder(request("/callable", key), (name, value) -> true)
                .header("X-Conflict", "true").header("X-Gate", "second").build();
        CompletableFuture<HttpResponse<byte[]>> second = HTTP.sendAsync(twin, HttpResponse.BodyHandlers.ofByteArray());
        awaitRuns("/callable", 2);

        GATES.get("main").countDown();
        HttpResponse<byte[]> stored = first.get(30, TimeUnit.SECONDS);
        // (the handler counts its run before it takes its gate: whichever comes first creates it)
        GATES.computeIfAbsent("second", g -> new CountDownLatch(1)).countDown();
        HttpResponse<byte[]> replaced = second.get(30, TimeUnit.SECONDS);

        assertThat(stored.statusCode()).isEqualTo(201);
        assertThat(replaced.statusCode()).isEqualTo(201);
        assertThat(replaced.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replaced.body()).isEqualTo(stored.body());
    }

    /**
     * Not Spring MVC: a servlet that writes from another thread and completes without an
     * asynchronous dispatch. Its bytes pass through as they are written, and the execution is
     * finished when the request completes.
     */
    @Test
    void aPlainAsyncServletThatCompletesWithoutADispatchIsSentWholeAndKeptWithoutItsBody() throws Exception {
        start();
        String key = UUID.randomUUID().toString();
        GATES.put("main", new CountDownLatch(0));
        HttpResponse<byte[]> first = post("/raw", key);
        HttpResponse<byte[]> retry = post("/raw", key);
        // The container sends the end of the response before it tells the listeners: a retry that
        // quick may still find the key in flight, for a moment.
        for (int i = 0; retry.statusCode() == 409 && i < 100; i++) {
            Thread.sleep(50);
            retry = post("/raw", key);
        }

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("run 1 end");
        assertProblem(retry, 410, "idempotency_response_not_stored");
        assertThat(retry.headers().firstValue("Location")).hasValue("/things/1");
        assertThat(runs("/raw")).isEqualTo(1);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(LaterController.class)
    static class AsyncService {

        @Bean
        ServletRegistrationBean<HttpServlet> rawAsyncServlet() {
            ServletRegistrationBean<HttpServlet> servlet = new ServletRegistrationBean<>(new RawAsyncServlet(), "/raw");
            servlet.setAsyncSupported(true);
            return servlet;
        }
    }

    static final class RawAsyncServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) {
            int run = LaterController.ran("/raw");
            AsyncContext async = request.startAsync(request, response);
            WORKERS.execute(() -> {
                try {
                    HttpServletResponse later = (HttpServletResponse) async.getResponse();
                    later.setStatus(201);
                    later.setHeader(HttpHeaders.LOCATION, "/things/" + run);
                    later.setContentType("text/plain;charset=utf-8");
                    later.getWriter().write("run " + run);
                    LaterController.pass("main");
                    later.getWriter().write(" end");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    async.complete();
                }
            });
        }
    }

    /**
     * One handler per shape. Each counts its run, writes or computes "run N", waits on its gate
     * ({@code main} unless {@code gate} or {@code X-Gate} names another), then ends with "end"; {@code fail} makes it
     * fail instead, after its first event when it streams.
     */
    @RestController
    static class LaterController {

        private static int ran(String path) {
            return RUNS.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        }

        private static void pass(String gate) {
            STARTED.countDown();
            try {
                if (!GATES.computeIfAbsent(gate, g -> new CountDownLatch(1)).await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate " + gate + " stayed shut");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private static ResponseEntity<Map<String, Object>> created(int run, boolean fail, boolean conflict) {
            if (fail) {
                throw new IllegalStateException("failed on purpose");
            }
            if (conflict) {
                return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("conflict", "run " + run));
            }
            return ResponseEntity.status(HttpStatus.CREATED).header(HttpHeaders.LOCATION, "/things/" + run)
                    .body(Map.of("thing", "run " + run, "then", "end"));
        }

        @PostMapping("/callable")
        Callable<ResponseEntity<Map<String, Object>>> callable(@RequestParam(defaultValue = "false") boolean fail,
                                                               @RequestHeader(name = "X-Conflict", defaultValue = "false") boolean conflict,
                                                               @RequestHeader(name = "X-Gate", defaultValue = "main") String gate) {
            int run = ran("/callable");
            return () -> {
                pass(gate);
                return created(run, fail, conflict);
            };
        }

        @PostMapping("/deferred")
        DeferredResult<ResponseEntity<Map<String, Object>>> deferred(@RequestParam(required = false) Long timeoutMs) {
            int run = ran("/deferred");
            DeferredResult<ResponseEntity<Map<String, Object>>> result = new DeferredResult<>(timeoutMs);
            if (timeoutMs == null) {
                WORKERS.execute(() -> {
                    pass("main");
                    result.setResult(created(run, false, false));
                });
            }
            return result;
        }

        @PostMapping("/task")
        WebAsyncTask<ResponseEntity<Map<String, Object>>> task() {
            int run = ran("/task");
            return new WebAsyncTask<>(30_000L, () -> {
                pass("main");
                return created(run, false, false);
            });
        }

        @PostMapping("/future")
        CompletableFuture<ResponseEntity<Map<String, Object>>> future(@RequestParam(defaultValue = "false") boolean fail) {
            int run = ran("/future");
            return CompletableFuture.supplyAsync(() -> {
                pass("main");
                return created(run, fail, false);
            }, WORKERS);
        }

        @PostMapping("/sse")
        ResponseEntity<SseEmitter> sse(@RequestParam(defaultValue = "false") boolean fail) {
            int run = ran("/sse");
            SseEmitter emitter = new SseEmitter(30_000L);
            WORKERS.execute(() -> {
                try {
                    emitter.send(SseEmitter.event().data("run " + run));
                    if (fail) {
                        emitter.completeWithError(new IllegalStateException("failed on purpose"));
                        return;
                    }
                    pass("main");
                    emitter.send(SseEmitter.event().data("end"));
                    emitter.complete();
                } catch (Exception e) {
                    emitter.completeWithError(e);
                }
            });
            return ResponseEntity.ok().header(HttpHeaders.LOCATION, "/things/" + run).body(emitter);
        }

        @PostMapping("/streaming")
        ResponseEntity<StreamingResponseBody> streaming() {
            int run = ran("/streaming");
            StreamingResponseBody body = out -> {
                out.write(("run " + run + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                pass("main");
                out.write("end\n".getBytes(StandardCharsets.UTF_8));
            };
            return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).header(HttpHeaders.LOCATION, "/things/" + run)
                    .body(body);
        }
    }
}
