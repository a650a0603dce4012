package dev.idempotency.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.PurgeScheduler;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.internal.AtOnce;
import dev.idempotency.testkit.internal.RawHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * One HTTP-level suite for every adapter: it drives a real server over HTTP with
 * {@link HttpClient} (and {@code RawHttp} where HttpClient would refuse or rewrite the request)
 * and counts handler executions through {@link ConformanceApp}.
 *
 * <p>An adapter's test implements {@link #startServer}: start a real server on a free port with
 * the adapter wired to the given engine on every path, serving {@link ConformanceApp}'s routes
 * in the framework's native style, and return its base URI and a way to stop it.
 */
public abstract class HttpConformanceTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";

    /** A started server. */
    public interface RunningServer extends AutoCloseable {
        /** Where it listens, e.g. {@code http://127.0.0.1:34567}. */
        URI baseUri();
    }

    /** Starts the adapter under test with {@code engine}, serving {@code app}'s routes. */
    protected abstract RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) throws Exception;

    /**
     * The status the adapter's server itself answers a request target carrying a raw {@code #}
     * with, before the adapter sees it; empty (the default) when the request reaches the adapter,
     * which must then refuse it with 400 {@code idempotency_path_invalid}.
     */
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.empty();
    }

    /**
     * How the adapter's server routes a path ({@link PathSpelling.Routing}): declared, each
     * spelling of the matrices must reach the route it expects for that kind of router; empty
     * (the default), only the invariants of {@link PathSpellingChecks} are checked.
     */
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.empty();
    }

    /**
     * The status the adapter's server answers {@code POST /timeout} with when its own asynchronous
     * timeout ({@link HostileClientChecks#SERVER_TIMEOUT}) fires; empty (the default) when the
     * framework has no server-side timeout and the test serves no {@code /timeout}.
     */
    protected OptionalInt serverTimeoutStatus() {
        return OptionalInt.empty();
    }

    /**
     * Whether the framework cancels a handler when its client disconnects (WebFlux cancels the
     * exchange): then the adapter abandons the key rather than store what it no longer sees, and
     * a retry of {@code POST /orders} may get 409 until the lease ends instead of a replay.
     */
    protected boolean cancelsHandlersOnDisconnect() {
        return false;
    }

    /** The store behind the engine; in memory unless a subclass tests another. */
    protected Store createStore() {
        return new InMemoryStore();
    }

    protected final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    protected final ConformanceApp app = new ConformanceApp();
    protected OutageStore store;
    private IdempotencyEngine engine;
    private RunningServer server;

    /**
     * The server (and engine) of the suite's default settings, kept from one test to the next of a
     * class while each uses it: starting one per test costs seconds in some frameworks. Each test
     * still gets its own store ({@link OutageStore#replace}) and its own {@link #app}.
     */
    private static Shared shared;
    private static volatile ConformanceApp currentApp;

    private record Shared(Class<?> owner, OutageStore store, IdempotencyEngine engine, RunningServer server) {
        void close() throws Exception {
            try (engine) {
                server.close();
            }
        }
    }

    /** Starts the server with the default settings the suite expects (or takes over the kept one). */
    protected URI start() throws Exception {
        if (shared == null || shared.owner() != getClass()) {
            closeShared();
            OutageStore outage = new OutageStore(createStore());
            IdempotencyEngine defaults = new IdempotencyEngine(outage, settings(UnaryOperator.identity()));
            shared = new Shared(getClass(), outage, defaults,
                    startServer(defaults, ConformanceApp.following(() -> currentApp)));
        } else {
            shared.store().replace(createStore());
        }
        currentApp = app;
        store = shared.store();
        server = shared.server();
        return server.baseUri();
    }

    /** Starts the server with the suite's settings changed by {@code customize}. */
    protected URI start(UnaryOperator<IdempotencyConfig.Builder> customize) throws Exception {
        store = new OutageStore(createStore());
        engine = new IdempotencyEngine(store, settings(customize));
        server = startServer(engine, app);
        return server.baseUri();
    }

    private static IdempotencyConfig settings(UnaryOperator<IdempotencyConfig.Builder> customize) {
        return customize.apply(IdempotencyConfig.builder()
                .tenantResolver(TenantResolver.header("X-Tenant-Id", "public"))).build();
    }

    /**
     * Stops this test's own server; the kept one too unless this test used it (another server, or
     * none, may have displaced what it routes to).
     */
    @AfterEach
    void stopServer() throws Exception {
        if (engine != null) {
            try (IdempotencyEngine own = engine) {
                if (server != null) {
                    server.close();
                }
            }
        }
        if (server == null || engine != null) {
            closeShared();
        }
    }

    /** Stops the kept server; a subclass whose own {@code @AfterAll} stops what it runs on calls this first. */
    @AfterAll
    protected static void closeShared() throws Exception {
        if (shared != null) {
            Shared kept = shared;
            shared = null;
            kept.close();
        }
    }

    // ---------------------------------------------------------------- requests

    protected HttpResponse<byte[]> post(String path, String key, String body, String... headers) throws Exception {
        return send(request(path, key, headers).POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    protected HttpRequest.Builder request(String path, String key, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.baseUri().resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json");
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }

    protected HttpResponse<byte[]> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    protected static String newKey() {
        return "key-" + UUID.randomUUID();
    }

    protected static JsonNode json(HttpResponse<byte[]> response) throws IOException {
        return JSON.readTree(response.body());
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    private static void assertProblem(HttpResponse<byte[]> response, int status, String code) throws IOException {
        assertThat(response.statusCode()).as("status").isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                ct -> assertThat(ct).startsWith("application/problem+json"));
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode problem = json(response);
        assertThat(problem.path("code").asText()).isEqualTo(code);
        assertThat(problem.path("status").asInt()).isEqualTo(status);
        assertThat(problem.path("type").asText()).isNotBlank();
        assertThat(problem.path("title").asText()).isNotBlank();
        assertThat(problem.path("detail").asText()).isNotBlank();
    }

    // ---------------------------------------------------------------- replay

    @Test
    void aRetryIsReplayedByteExactWithItsHeadersAndTheHandlerRunsOnce() throws Exception {
        start();
        String key = newKey();

        HttpResponse<byte[]> first = post("/orders", key, ORDER);
        HttpResponse<byte[]> second = post("/orders", key, ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(first)).isFalse();
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(second.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(second.headers().firstValue("Cache-Control")).hasValue("private, no-store");
        assertThat(second.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(second.headers().firstValue("Vary")).hasValue("Origin");
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    @Test
    void credentialAndUnlistedHeadersAreNeverReplayed() throws Exception {
        start();
        String key = newKey();

        HttpResponse<byte[]> first = post("/orders", key, ORDER);
        HttpResponse<byte[]> second = post("/orders", key, ORDER);

        assertThat(first.headers().firstValue("Set-Cookie")).isPresent();
        assertThat(first.headers().firstValue("X-Order-Seq")).isPresent();
        assertThat(second.headers().firstValue("Set-Cookie")).isEmpty();
        assertThat(second.headers().firstValue("X-Order-Seq")).isEmpty();
    }

    @Test
    void aNonJsonResponseIsReplayedWithItsContentType() throws Exception {
        start();
        String key = newKey();

        HttpResponse<byte[]> first = post("/text", key, "hello");
        HttpResponse<byte[]> second = post("/text", key, "hello");

        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("plain text #1");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(app.executions("text")).isEqualTo(1);
    }

    @Test
    void jsonKeyOrderAndWhitespaceDoNotChangeTheFingerprint() throws Exception {
        start();
        String key = newKey();

        HttpResponse<byte[]> first = post("/orders", key, "{\"item\":\"book\",\"quantity\":2}");
        HttpResponse<byte[]> second = post("/orders", key, "{ \"quantity\" : 2,\n \"item\" : \"book\" }");

        assertThat(replayed(second)).isTrue();
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    @Test
    void aQuotedKeyIsTheSameKeyAsItsBareFormAndMayHoldASpace() throws Exception {
        start();
        String key = newKey();

        post("/orders", key, ORDER);
        HttpResponse<byte[]> quoted = post("/orders", "\"" + key + "\"", ORDER);
        String spaced = "\"order " + key + "\""; // an RFC 8941 String may hold a space
        HttpResponse<byte[]> first = post("/orders", spaced, ORDER);
        HttpResponse<byte[]> retry = post("/orders", spaced, ORDER);

        assertThat(replayed(quoted)).isTrue();
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isTrue();
        assertThat(app.executions("orders")).isEqualTo(2);
    }

    /** Replies the engine writes itself carry a {@code Date}, as the framework's own responses do (RFC 9110 §6.6.1). */
    @Test
    void aReplayAndAProblemCarryAParsableDate() throws Exception {
        start();
        String key = newKey();
        post("/orders", key, ORDER);

        HttpResponse<byte[]> replay = post("/orders", key, ORDER);
        HttpResponse<byte[]> problem = post("/orders", key, "{\"item\":\"pen\",\"quantity\":2}");

        assertThat(replayed(replay)).isTrue();
        assertProblem(problem, 422, "idempotency_key_conflict");
        for (HttpResponse<byte[]> response : List.of(replay, problem)) {
            assertThat(response.headers().allValues("Date")).as("Date of a %d", response.statusCode()).hasSize(1);
            ZonedDateTime date = ZonedDateTime.parse(response.headers().firstValue("Date").orElseThrow(),
                    DateTimeFormatter.RFC_1123_DATE_TIME);
            assertThat(Duration.between(date, ZonedDateTime.now()).abs()).isLessThan(Duration.ofMinutes(5));
        }
    }

    // ---------------------------------------------------------------- conflicts

    @Test
    void theSameKeyWithADifferentBodyIsRejectedWith422() throws Exception {
        start();
        String key = newKey();
        post("/orders", key, ORDER);

        HttpResponse<byte[]> reused = post("/orders", key, "{\"item\":\"pen\",\"quantity\":2}");

        assertProblem(reused, 422, "idempotency_key_conflict");
        assertThat(json(reused).path("detail").asText()).isEqualTo("Idempotency-Key reused with a different request (its body, query string or media type)");
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    @Test
    void aDifferentBodyIsRejectedWith422WhileTheFirstIsStillRunning() throws Exception {
        start();
        String key = newKey();
        CompletableFuture<HttpResponse<byte[]>> first = http.sendAsync(
                request("/orders?delayMs=1500", key).POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        awaitExecutions("orders", 1);

        HttpResponse<byte[]> reused = post("/orders", key, "{\"item\":\"pen\",\"quantity\":2}");

        assertProblem(reused, 422, "idempotency_key_conflict");
        assertThat(app.finished("orders")).as("the first still runs").isZero();
        app.endWaits();
        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    }

    @Test
    void aDuplicateWhileTheFirstRunsGets409WithRetryAfterThenAReplay() throws Exception {
        start();
        String key = newKey();
        CompletableFuture<HttpResponse<byte[]>> first = http.sendAsync(
                request("/orders?delayMs=1500", key).POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        awaitExecutions("orders", 1);

        HttpResponse<byte[]> duplicate = post("/orders?delayMs=1500", key, ORDER);

        assertProblem(duplicate, 409, "idempotency_request_in_progress");
        assertThat(duplicate.headers().firstValue("Retry-After")).isPresent();
        assertThat(app.finished("orders")).as("the first still runs").isZero();
        app.endWaits();
        HttpResponse<byte[]> original = first.get(30, TimeUnit.SECONDS);
        HttpResponse<byte[]> retry = post("/orders?delayMs=1500", key, ORDER);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(original.body());
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    @Test
    void whenConfiguredADuplicateWaitsForTheFirstAndIsReplayed() throws Exception {
        start(c -> c.inFlightWait(Duration.ofSeconds(10)));
        String key = newKey();
        CompletableFuture<HttpResponse<byte[]>> first = http.sendAsync(
                request("/orders?delayMs=800", key).POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        awaitExecutions("orders", 1);

        HttpResponse<byte[]> duplicate = post("/orders?delayMs=800", key, ORDER);

        assertThat(duplicate.statusCode()).isEqualTo(201);
        assertThat(replayed(duplicate)).isTrue();
        assertThat(duplicate.body()).isEqualTo(first.get(30, TimeUnit.SECONDS).body());
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    @Test
    void fiftyConcurrentIdenticalPostsExecuteExactlyOnce() throws Exception {
        start();
        List<HttpResponse<byte[]>> responses = concurrently(50, newKey(), "/orders?delayMs=300");

        assertThat(app.executions("orders")).isEqualTo(1);
        long originals = responses.stream().filter(r -> r.statusCode() == 201 && !replayed(r)).count();
        assertThat(originals).isEqualTo(1);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(201, 409));
    }

    @Test
    void fiftyConcurrentIdenticalPostsThatWaitAllGetTheSameOrder() throws Exception {
        start(c -> c.inFlightWait(Duration.ofSeconds(20)));
        List<HttpResponse<byte[]>> responses = concurrently(50, newKey(), "/orders?delayMs=300");

        assertThat(app.executions("orders")).isEqualTo(1);
        byte[] body = responses.get(0).body();
        assertThat(responses).allSatisfy(r -> {
            assertThat(r.statusCode()).isEqualTo(201);
            assertThat(r.body()).isEqualTo(body);
        });
        assertThat(responses.stream().filter(r -> !replayed(r)).count()).isEqualTo(1);
    }

    private List<HttpResponse<byte[]>> concurrently(int n, String key, String path) throws Exception {
        return AtOnce.run(n, () -> post(path, key, ORDER));
    }

    /**
     * {@link #concurrently}, where the handler's {@code delayMs} wait ends ({@link ConformanceApp#endWaits})
     * once all requests but one have their answer: the duplicates were all answered while the one
     * that runs was still waiting (or, on a machine slower than the wait, after it).
     */
    private List<HttpResponse<byte[]>> concurrentlyUntilOneIsLeft(int n, String key, String path) throws Exception {
        AtomicInteger answered = new AtomicInteger();
        return AtOnce.run(n, () -> {
            try {
                return post(path, key, ORDER);
            } finally {
                if (answered.incrementAndGet() == n - 1) {
                    app.endWaits();
                }
            }
        });
    }

    // ---------------------------------------------------------------- keys

    @Test
    void malformedKeysAreRejectedWith400() throws Exception {
        start();
        for (String bad : List.of("k".repeat(256), "\"\"", "\"unterminated", "\"bad\\escape\"", "has space",
                "\"quoted\";param=1")) {
            assertProblem(post("/orders", bad, ORDER), 400, "idempotency_key_invalid");
        }
        assertThat(app.executions("orders")).isZero();
    }

    @Test
    void aRepeatedKeyHeaderIsRejectedWith400() throws Exception {
        start();
        HttpResponse<byte[]> response = send(request("/orders", newKey(), "Idempotency-Key", newKey())
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build());

        assertProblem(response, 400, "idempotency_key_invalid");
        assertThat(app.executions("orders")).isZero();
    }

    @Test
    void keysOfControlOrNonAsciiBytesAreRejectedWith400() throws Exception {
        start();
        for (byte[] key : List.of(new byte[] {'a', 0x01, 'b'}, "k\u00e4y".getBytes(StandardCharsets.UTF_8))) {
            assertThat(rawPost("/orders", key, ORDER).status()).isEqualTo(400);
        }
        assertThat(app.executions("orders")).isZero();
    }

    @Test
    void aKeyOf255CharactersIsAccepted() throws Exception {
        start();
        String key = "k".repeat(255 - 36) + UUID.randomUUID();
        post("/orders", key, ORDER);
        assertThat(replayed(post("/orders", key, ORDER))).isTrue();
    }

    @Test
    void aMissingKeyPassesThroughByDefault() throws Exception {
        start();
        post("/orders", null, ORDER);
        HttpResponse<byte[]> second = post("/orders", null, ORDER);

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).isFalse();
        assertThat(app.executions("orders")).isEqualTo(2);
    }

    @Test
    void aMissingKeyIsRejectedWhenRequired() throws Exception {
        start(c -> c.keyRequired(true));
        assertProblem(post("/orders", null, ORDER), 400, "idempotency_key_missing");
        assertThat(app.executions("orders")).isZero();
    }

    // ---------------------------------------------------------------- namespace

    /**
     * The query string is not part of the record but is part of the fingerprint: a handler may read
     * it, so the same key with another query is refused, and the same query replays.
     */
    @Test
    void theQueryStringIsPartOfTheFingerprintNotOfTheRecord() throws Exception {
        start();
        String key = newKey();
        assertThat(post("/orders?debug=true", key, ORDER).statusCode()).isEqualTo(201);

        assertThat(post("/orders", key, ORDER).statusCode()).isEqualTo(422);
        assertThat(post("/orders?debug=false", key, ORDER).statusCode()).isEqualTo(422);
        assertThat(replayed(post("/orders?debug=true", key, ORDER))).isTrue();
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    /** The same key on /orders and on /payments is two records, each replaying its own answer. */
    @Test
    void pathsAreIndependentNamespaces() throws Exception {
        start();
        String key = newKey();
        HttpResponse<byte[]> order = post("/orders", key, ORDER);
        HttpResponse<byte[]> payment = post("/payments", key, ORDER);
        HttpResponse<byte[]> orderAgain = post("/orders", key, ORDER);
        HttpResponse<byte[]> paymentAgain = post("/payments", key, ORDER);

        assertThat(replayed(order)).isFalse();
        assertThat(replayed(payment)).isFalse();
        assertThat(payment.statusCode()).isEqualTo(200);
        assertThat(replayed(orderAgain)).isTrue();
        assertThat(orderAgain.body()).isEqualTo(order.body());
        assertThat(orderAgain.headers().firstValue("Location")).isEqualTo(order.headers().firstValue("Location"));
        assertThat(replayed(paymentAgain)).isTrue();
        assertThat(paymentAgain.statusCode()).isEqualTo(200);
        assertThat(paymentAgain.body()).isEqualTo(payment.body());
        assertThat(app.executions("orders")).isEqualTo(1);
        assertThat(app.executions("payments")).isEqualTo(1);
    }

    @Test
    void tenantsAreIndependentNamespaces() throws Exception {
        start();
        String key = newKey();
        post("/orders", key, ORDER, "X-Tenant-Id", "tenant-a");
        HttpResponse<byte[]> otherTenant = post("/orders", key, ORDER, "X-Tenant-Id", "tenant-b");
        HttpResponse<byte[]> sameTenant = post("/orders", key, ORDER, "X-Tenant-Id", "tenant-a");

        assertThat(replayed(otherTenant)).isFalse();
        assertThat(replayed(sameTenant)).isTrue();
        assertThat(app.executions("orders")).isEqualTo(2);
    }

    // ---------------------------------------------------------------- path spellings

    /**
     * Every spelling of {@link PathSpelling#matrix()}, over a raw socket (HttpClient drops a
     * fragment and may resolve dot segments), judged by {@link PathSpellingChecks}: a handler runs
     * at most once per key however the path is spelled, an answer is never another route's, a
     * raw {@code #} is refused, no spelling costs a 5xx. One server for all.
     */
    @TestFactory
    Stream<DynamicTest> eachPathSpellingRunsAHandlerAtMostOncePerKeyAndAnswersOnlyForItsOwnEndpoint() throws Exception {
        start();
        PathSpellingChecks checks = new PathSpellingChecks(spellingService());
        return PathSpelling.matrix().stream().map(spelling -> dynamicTest(spelling.toString(), () -> checks.check(spelling)));
    }

    @Test
    void oneKeyAcrossEveryPathSpellingRunsEachHandlerAtMostOnce() throws Exception {
        start();
        new PathSpellingChecks(spellingService()).checkOneKey();
    }

    /**
     * Every spelling of {@link PathSpelling#itemMatrix()}: next to the literal
     * {@code POST /orders/bulk} and {@code POST /orders}, the template {@code POST /orders/{id}}
     * takes a segment a router does not resolve as its id ({@code /orders/b%75lk}: "bulk",
     * {@code /orders/.}: "."), so a record filed under the resolved path would answer one
     * handler's request with another's response. No spelling may, and {@code %zz} is a 400.
     */
    @TestFactory
    Stream<DynamicTest> eachSpellingNextToATemplateRouteIsAnsweredOnlyByTheHandlerTheRouterSendsItTo() throws Exception {
        start();
        PathSpellingChecks checks = new PathSpellingChecks(spellingService());
        return PathSpelling.itemMatrix().stream()
                .map(spelling -> dynamicTest(spelling.toString(), () -> checks.check(spelling)));
    }

    @Test
    void oneKeyAcrossEverySpellingNextToATemplateRouteRunsEachRouteAtMostOnce() throws Exception {
        start();
        new PathSpellingChecks(spellingService()).checkOneKey(PathSpelling.itemMatrix());
    }

    private PathSpellingChecks.Service spellingService() {
        return new PathSpellingChecks.Service() {
            @Override
            public RawResponse post(String target, String key) throws IOException {
                return rawPost(target, key, PathSpellingChecks.BODY);
            }

            @Override
            public int runs(PathSpelling.Endpoint endpoint) {
                return app.executions(switch (endpoint) {
                    case ORDERS -> "orders";
                    case PAYMENTS -> "payments";
                    case BULK -> "bulk";
                    case ORDER_ITEM -> "order-item";
                });
            }

            @Override
            public Set<PathSpelling.Endpoint> endpoints() {
                return EnumSet.allOf(PathSpelling.Endpoint.class);
            }

            @Override
            public Optional<PathSpelling.Routing> routing() {
                return HttpConformanceTest.this.routing();
            }

            @Override
            public OptionalInt serverRefusesFragmentsWith() {
                return HttpConformanceTest.this.serverRefusesFragmentsWith();
            }
        };
    }

    // ---------------------------------------------------------------- hostile clients ({@link HostileClientChecks})

    @Test
    void aClientThatDisconnectsDuringTheHandlerGets409ThenAReplay() throws Exception {
        start();
        new HostileClientChecks(server.baseUri(), app).disconnectDuringTheHandler(cancelsHandlersOnDisconnect());
    }

    @Test
    void aClientThatDisconnectsFromAnAsynchronousHandlerNeverRunsItTwice() throws Exception {
        start();
        new HostileClientChecks(server.baseUri(), app).disconnectFromAnAsynchronousHandler();
    }

    /** One test where the framework has a server-side timeout ({@link #serverTimeoutStatus}), none elsewhere. */
    @TestFactory
    Stream<DynamicTest> aServerSideTimeoutNeverRunsTheHandlerTwice() {
        return serverTimeoutStatus().stream().mapToObj(status -> dynamicTest("timeout answered " + status, () -> {
            start();
            new HostileClientChecks(server.baseUri(), app).serverSideTimeout(status);
        }));
    }

    @Test
    void anExceptionMappedToA2xxIsStoredLikeAny2xx() throws Exception {
        start();
        new HostileClientChecks(server.baseUri(), app).exceptionMappedToA2xx();
    }

    // ---------------------------------------------------------------- what is not stored

    @Test
    void partialAndFailedOutcomesAreNotStoredSoARetryRunsAgain() throws Exception {
        start();
        for (String outcome : List.of("partial", "failed")) {
            String key = newKey();
            String body = "{\"amount\":5,\"outcome\":\"" + outcome + "\"}";
            assertThat(post("/payments", key, body).statusCode()).isEqualTo(200);
            HttpResponse<byte[]> retry = post("/payments", key, body);
            assertThat(replayed(retry)).isFalse();
            assertThat(json(retry).path("status").asText()).isEqualTo(outcome);
        }
        assertThat(app.executions("payments")).isEqualTo(4);

        String key = newKey();
        post("/payments", key, "{\"amount\":5,\"outcome\":\"succeeded\"}");
        assertThat(replayed(post("/payments", key, "{\"amount\":5,\"outcome\":\"succeeded\"}"))).isTrue();
        assertThat(app.executions("payments")).isEqualTo(5);
    }

    @Test
    void nonSuccessResponsesAreNotStored() throws Exception {
        start();
        String key = newKey();
        HttpResponse<byte[]> first = post("/reject", key, "{}");
        HttpResponse<byte[]> second = post("/reject", key, "{}");

        assertThat(first.statusCode()).isEqualTo(400);
        assertThat(second.statusCode()).isEqualTo(400);
        assertThat(replayed(second)).isFalse();
        assertThat(app.executions("reject")).isEqualTo(2);
    }

    @Test
    void aHandlerThatThrowsStoresNothingAndReleasesTheKey() throws Exception {
        start();
        String key = newKey();
        HttpResponse<byte[]> first = post("/fail", key, "{}");
        HttpResponse<byte[]> second = post("/fail", key, "{}");

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(second.statusCode()).as("released, not 409").isEqualTo(500);
        assertThat(app.executions("fail")).isEqualTo(2);
    }

    // ---------------------------------------------------------------- every response shape runs once

    @Test
    void anAsynchronousHandlerRunsOnceForConcurrentDuplicatesAndALaterRetry() throws Exception {
        start();
        String key = newKey();
        List<HttpResponse<byte[]>> responses = concurrentlyUntilOneIsLeft(20, key, "/async?delayMs=1500");
        HttpResponse<byte[]> retry = post("/async?delayMs=1500", key, ORDER);

        assertThat(app.executions("async")).isEqualTo(1);
        List<HttpResponse<byte[]>> originals = responses.stream().filter(r -> !replayed(r)).filter(
                r -> r.statusCode() == 201).toList();
        assertThat(originals).hasSize(1);
        assertThat(json(originals.get(0)).path("status").asText()).isEqualTo("created");
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(201, 409));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(originals.get(0).body());
    }

    @Test
    void aStreamedResponseRunsOnceAndItsRetryIsToldItWasApplied() throws Exception {
        start();
        String key = newKey();
        List<HttpResponse<byte[]>> responses = concurrently(20, key, "/stream?delayMs=500");
        HttpResponse<byte[]> retry = post("/stream?delayMs=500", key, ORDER);

        assertThat(app.executions("stream")).isEqualTo(1);
        List<HttpResponse<byte[]>> originals = responses.stream().filter(r -> r.statusCode() == 200).toList();
        assertThat(originals).hasSize(1);
        assertThat(new String(originals.get(0).body(), StandardCharsets.UTF_8))
                .startsWith("chunk 1 of stream ").endsWith("chunk 2\nchunk 3\n");
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(200, 409, 410));
        assertNotStored(retry, originals.get(0).headers().firstValue("Location").orElseThrow());
    }

    @Test
    void aResponseOverTheStoredLimitRunsOnceAndItsRetryIsToldItWasApplied() throws Exception {
        start(c -> c.maxStoredBodyBytes(1024));
        String key = newKey();
        List<HttpResponse<byte[]>> responses = concurrentlyUntilOneIsLeft(20, key, "/large?bytes=4096&delayMs=1000");
        HttpResponse<byte[]> retry = post("/large?bytes=4096&delayMs=1000", key, ORDER);

        assertThat(app.executions("large")).isEqualTo(1);
        List<HttpResponse<byte[]>> originals = responses.stream().filter(r -> r.statusCode() == 201).toList();
        assertThat(originals).hasSize(1);
        assertThat(originals.get(0).body()).hasSize(4096);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(201, 409, 410));
        assertNotStored(retry, originals.get(0).headers().firstValue("Location").orElseThrow());
    }

    @Test
    void aContentTypeTooLongToStoreRunsOnce() throws Exception {
        start();
        String key = newKey();
        HttpResponse<byte[]> first = post("/large?type=long", key, ORDER);
        HttpResponse<byte[]> retry = post("/large?type=long", key, ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Content-Type").orElseThrow().length()).isGreaterThan(255);
        assertNotStored(retry, first.headers().firstValue("Location").orElseThrow());
        assertThat(app.executions("large")).isEqualTo(1);
    }

    @Test
    void aResponseOfTwoMegabytesIsStoredByDefault() throws Exception {
        start();
        String key = newKey();
        HttpResponse<byte[]> first = post("/large?bytes=2000000", key, ORDER);
        HttpResponse<byte[]> retry = post("/large?bytes=2000000", key, ORDER);

        assertThat(first.body()).hasSize(2_000_000);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(app.executions("large")).isEqualTo(1);
    }

    @Test
    void optingInToRunAgainReleasesAResponseThatCannotBeStored() throws Exception {
        start(c -> c.maxStoredBodyBytes(16).runAgainWhenNotStored(true));
        String key = newKey();
        post("/orders", key, ORDER);
        HttpResponse<byte[]> retry = post("/orders", key, ORDER);

        assertThat(replayed(retry)).isFalse();
        assertThat(app.executions("orders")).isEqualTo(2);
    }

    /** A retry of a success kept without its body: 410, the original's Location, never run again. */
    private static void assertNotStored(HttpResponse<byte[]> retry, String location) throws IOException {
        assertProblem(retry, 410, "idempotency_response_not_stored");
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("Location")).hasValue(location);
        assertThat(json(retry).path("detail").asText()).contains("already applied").contains(location);
    }

    @Test
    void aRequestBodyLargerThanTheLimitIsRejectedWith413() throws Exception {
        start(c -> c.maxRequestBodyBytes(64));
        String big = "{\"item\":\"" + "x".repeat(100) + "\",\"quantity\":1}";

        assertProblem(post("/orders", newKey(), big), 413, "idempotency_request_too_large");
        assertThat(app.executions("orders")).isZero();
    }

    @Test
    void anInvalidJsonBodyIsFingerprintedAsRawBytes() throws Exception {
        start();
        String key = newKey();
        HttpResponse<byte[]> first = post("/text", key, "{not json");
        HttpResponse<byte[]> same = post("/text", key, "{not json");
        HttpResponse<byte[]> different = post("/text", key, "{not  json");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(replayed(same)).isTrue();
        assertProblem(different, 422, "idempotency_key_conflict");
    }

    // ---------------------------------------------------------------- storage and scope

    @Test
    void missingStorageAnswers503AndTheHandlerDoesNotRun() throws Exception {
        start();
        store.outage(StorageUnavailableException.Reason.NOT_PROVISIONED);

        HttpResponse<byte[]> response = post("/orders", newKey(), ORDER);

        assertProblem(response, 503, "idempotency_storage_unavailable");
        assertThat(json(response).path("detail").asText()).isEqualTo("Idempotency storage is not provisioned");
        assertThat(response.headers().firstValue("Retry-After")).isPresent();
        assertThat(app.executions("orders")).isZero();
    }

    @Test
    void unreachableStorageAnswers503AndServiceResumesWhenItIsBack() throws Exception {
        start();
        String key = newKey();
        store.outage(StorageUnavailableException.Reason.UNREACHABLE);
        assertProblem(post("/orders", key, ORDER), 503, "idempotency_storage_unavailable");

        store.outage(null);
        assertThat(post("/orders", key, ORDER).statusCode()).isEqualTo(201);
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    @Test
    void getRequestsAreUntouched() throws Exception {
        start();
        String key = newKey();
        HttpResponse<byte[]> first = send(request("/orders", key).GET().build());
        HttpResponse<byte[]> second = send(request("/orders", key).GET().build());

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(replayed(second)).isFalse();
        assertThat(app.executions("list")).isEqualTo(2);
    }

    @Test
    void theOptimisticModeReplaysACompletedRecord() throws Exception {
        start(c -> c.mode(Mode.OPTIMISTIC));
        String key = newKey();
        HttpResponse<byte[]> first = post("/orders", key, ORDER);
        HttpResponse<byte[]> second = post("/orders", key, ORDER);

        assertThat(replayed(second)).isTrue();
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(app.executions("orders")).isEqualTo(1);
    }

    /** A record whose handler still runs is never purged: its expiry follows its renewed lease. */
    @Test
    void aHandlerThatOutlivesTheTtlRunsOnceWhileThePurgeRuns() throws Exception {
        start(c -> c.ttl(Duration.ofSeconds(3)).lease(Duration.ofMillis(1500)));
        try (PurgeScheduler purge = PurgeScheduler.builder(store).interval(Duration.ofMillis(100))
                .initialDelay(Duration.ZERO).start()) {
            String key = newKey();
            CompletableFuture<HttpResponse<byte[]>> first = http.sendAsync(
                    request("/orders?delayMs=5000", key).POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            awaitExecutions("orders", 1);
            long pastTtl = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            int retriesPastTtl = 0;
            while (!first.isDone()) { // retries every 200 ms while it runs
                HttpResponse<byte[]> retry = post("/orders?delayMs=5000", key, ORDER);
                if (retry.statusCode() != 409 && first.isDone()) {
                    break; // it answered meanwhile: this one is the replay checked below
                }
                assertProblem(retry, 409, "idempotency_request_in_progress");
                retriesPastTtl += System.nanoTime() > pastTtl ? 1 : 0;
                Thread.sleep(200);
            }
            HttpResponse<byte[]> retry = post("/orders?delayMs=5000", key, ORDER);

            assertThat(retriesPastTtl).as("409s past the ttl while the handler ran").isPositive();
            assertThat(replayed(retry)).isTrue();
            assertThat(retry.body()).isEqualTo(first.get(30, TimeUnit.SECONDS).body());
            assertThat(app.executions("orders")).isEqualTo(1);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Waits until a route's handler has started {@code n} times (at most 10 s). */
    protected void awaitExecutions(String route, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (app.executions(route) < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("handler " + route + " did not start " + n + " times");
            }
            Thread.sleep(10);
        }
    }

    /**
     * Sends a POST over a plain socket, with the request target verbatim and exactly
     * {@code keyBytes} as the key (none when null), so what HttpClient refuses or rewrites can be sent.
     */
    protected RawResponse rawPost(String target, byte[] keyBytes, String body) throws IOException {
        return RawHttp.post(server.baseUri(), target, keyBytes, body.getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #rawPost(String, byte[], String)} with a key of ASCII characters, or none when null. */
    protected RawResponse rawPost(String target, String key, String body) throws IOException {
        return RawHttp.post(server.baseUri(), target, key, body);
    }
}
