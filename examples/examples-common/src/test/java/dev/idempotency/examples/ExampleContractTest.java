package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.PathSpelling;
import dev.idempotency.testkit.PathSpellingChecks;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The examples' HTTP contract (see examples/README.md), run against each framework's real service
 * on embedded H2. A service's test implements {@link #start} in a few lines; a subclass of that
 * test runs the same contract on another store by overriding {@link #storage()} with an
 * {@link ExampleStorage} (Redis, a Redis Cluster, PostgreSQL in either URL form).
 */
public abstract class ExampleContractTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";

    /** A started service; closing it stops the server and closes its {@link ExampleApp}. */
    public interface RunningExample extends AutoCloseable {
        /** The port it listens on. */
        int port();

        /** The line the service prints when it listens ({@link ExampleApp#startupLine}). */
        String startupLine();
    }

    /** Where this class's service keeps its records; embedded H2 and the JDBC store unless overridden. */
    protected ExampleStorage storage() {
        return ExampleStorage.EMBEDDED_H2;
    }

    private boolean redis() {
        return storage().environment().containsKey("REDIS_URL");
    }

    /**
     * What a service that has no atomic mode on this class's {@link #storage()} says when started
     * with {@code IDEMPOTENCY_MODE=atomic} (an {@link IllegalArgumentException} from {@link #start});
     * empty (the default) when it runs it.
     */
    protected Optional<String> atomicModeRefusal() {
        return Optional.empty();
    }

    /** Starts the service with {@code settings} (port 0: any free port). */
    protected abstract RunningExample start(ExampleSettings settings) throws Exception;

    /**
     * The status the service's server itself answers a request target carrying a raw {@code #}
     * with, before the idempotency adapter sees it; empty (the default) when the request reaches
     * the adapter, which must then refuse it with 400 {@code idempotency_path_invalid}.
     */
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.empty();
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private RunningExample server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private void start(Map<String, String> env) throws Exception {
        server = start(settings(env));
    }

    /** Settings for this class's storage plus {@code env}, on any free port. */
    protected ExampleSettings settings(Map<String, String> env) {
        Map<String, String> all = new HashMap<>(storage().environment());
        all.putAll(env);
        return ExampleSettings.from(all).withPort(0);
    }

    private HttpRequest.Builder request(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }

    private HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        return http.send(request(path, headers).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        return http.send(request(path, headers).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }

    private static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    @Test
    void anOrderIsCreatedWithItsLocationAndCanBeReadBack() throws Exception {
        start(Map.of());

        HttpResponse<String> created = post("/orders", ORDER, "Idempotency-Key", key());

        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode order = json(created);
        assertThat(order.path("item").asText()).isEqualTo("book");
        assertThat(order.path("quantity").asInt()).isEqualTo(2);
        assertThat(order.path("status").asText()).isEqualTo("created");
        String location = "/orders/" + order.path("id").asLong();
        assertThat(created.headers().firstValue("Location")).hasValue(location);
        assertThat(json(get(location))).isEqualTo(order);
        assertThat(get("/orders/424242").statusCode()).isEqualTo(404);
    }

    @Test
    void theStartupLineNamesTheStore() throws Exception {
        start(Map.of());

        assertThat(server.startupLine()).contains("listening on http://")
                .contains("idempotency store: " + storage().expectedStore() + " ");
    }

    @Test
    void aRetryIsReplayedAndCreatesNothing() throws Exception {
        start(Map.of());
        String key = key();
        OptionalLong recordsBefore = storage().storedRecords();

        HttpResponse<String> first = post("/orders", ORDER, "Idempotency-Key", key);
        if (recordsBefore.isPresent()) {
            assertThat(storage().storedRecords().getAsLong()).as("the record is in " + storage().expectedStore())
                    .isEqualTo(recordsBefore.getAsLong() + 1);
        }
        HttpResponse<String> retry = post("/orders", ORDER, "Idempotency-Key", key);

        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(json(get("/orders"))).hasSize(1);
        assertThat(post("/orders", "{\"item\":\"pen\",\"quantity\":2}", "Idempotency-Key", key).statusCode())
                .isEqualTo(422);
    }

    @Test
    void anInvalidBodyIsAProblemAndIsNotStored() throws Exception {
        start(Map.of());
        String key = key();

        for (int attempt = 0; attempt < 2; attempt++) {
            HttpResponse<String> invalid = post("/orders", "{\"item\":\"book\",\"quantity\":0}", "Idempotency-Key", key);
            assertThat(invalid.statusCode()).isEqualTo(400);
            assertThat(invalid.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(json(invalid).path("code").asText()).isEqualTo("validation_failed");
            assertThat(replayed(invalid)).isFalse();
        }
        assertThat(post("/orders?delayMs=9999", ORDER).statusCode()).isEqualTo(400);
        assertThat(json(get("/orders"))).isEmpty();
    }

    /** Jackson's message quotes the body ("Unrecognized token 'secretvalue123456'"): the detail is the service's own. */
    @Test
    void aBodyThatIsNotJsonIsAProblemThatDoesNotEchoTheBody() throws Exception {
        start(Map.of());

        for (String path : List.of("/orders", "/payments")) {
            for (String[] key : List.<String[]>of(new String[0], new String[] {"Idempotency-Key", key()})) {
                HttpResponse<String> invalid = post(path, "{\"item\": secretvalue123456, \"quantity\": 1}", key);
                assertThat(invalid.statusCode()).as(invalid.body()).isEqualTo(400);
                assertThat(invalid.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(json(invalid).path("code").asText()).isEqualTo("validation_failed");
                assertThat(invalid.body()).doesNotContain("secretvalue", "Unrecognized", "token");
            }
        }
    }

    @Test
    void listsArePerTenant() throws Exception {
        start(Map.of());
        String key = key();
        post("/orders", ORDER, "Idempotency-Key", key, "X-Tenant-Id", "acme");
        post("/orders", ORDER, "Idempotency-Key", key, "X-Tenant-Id", "globex");
        post("/orders", ORDER, "Idempotency-Key", key(), "X-Tenant-Id", "globex");

        assertThat(json(get("/orders", "X-Tenant-Id", "acme"))).hasSize(1);
        assertThat(json(get("/orders", "X-Tenant-Id", "globex"))).hasSize(2);
        assertThat(json(get("/orders"))).isEmpty();
    }

    @Test
    void aPartialPaymentIsNotStoredSoItsRetryMakesANewAttempt() throws Exception {
        start(Map.of());
        String key = key();
        String body = "{\"amount\":500,\"outcome\":\"partial\"}";

        HttpResponse<String> first = post("/payments", body, "Idempotency-Key", key);
        HttpResponse<String> retry = post("/payments", body, "Idempotency-Key", key);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(json(first).path("status").asText()).isEqualTo("partial");
        assertThat(replayed(retry)).isFalse();
        assertThat(json(retry).path("id").asLong()).isNotEqualTo(json(first).path("id").asLong());
        assertThat(json(get("/payments"))).hasSize(2);
    }

    @Test
    void aDuplicateWhileTheFirstIsRunningGets409() throws Exception {
        start(Map.of("IDEMPOTENCY_MODE", "reserve"));
        String key = key();
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(request("/orders?delayMs=2000",
                        "Idempotency-Key", key, "Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(), HttpResponse.BodyHandlers.ofString());
        Thread.sleep(300);

        HttpResponse<String> duplicate = post("/orders?delayMs=2000", ORDER, "Idempotency-Key", key);

        // Whichever reserved the key first ran; on a slow machine that may be the "duplicate".
        assertThat(List.of(first.get(10, TimeUnit.SECONDS).statusCode(), duplicate.statusCode()))
                .containsExactlyInAnyOrder(201, 409);
        assertThat(json(get("/orders"))).hasSize(1);
    }

    /**
     * The atomic mode on the embedded H2. The keyed order is written in the request's transaction
     * before {@code delayMs} is waited, so it takes its id first yet stays invisible until the
     * response is stored: an order without a key, posted meanwhile, gets a later id and is listed
     * alone. A duplicate meanwhile gets 409 at once; the retry afterwards replays. A payment whose
     * response is not stored commits without a record, so its retry makes a new attempt.
     *
     * <p>With the records in Redis there is no atomic mode: the orders are in the SQL database and
     * the records in Redis, with no transaction spanning both, so the service refuses to start and
     * says why. A service without the atomic mode ({@link #atomicModeRefusal()}) refuses it too.
     */
    @Test
    void inTheAtomicModeTheWritesCommitWithTheRecordAndOnRedisItIsRefused() throws Exception {
        if (!redis() && atomicModeRefusal().isPresent()) {
            assertThatThrownBy(() -> start(Map.of("IDEMPOTENCY_MODE", "atomic")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(atomicModeRefusal().get());
            assertThat(server).isNull();
            return;
        }
        if (redis()) {
            assertThatThrownBy(() -> start(Map.of("IDEMPOTENCY_MODE", "atomic")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("IDEMPOTENCY_MODE=atomic cannot be used with REDIS_URL")
                    .hasMessageContaining("no transaction");
            assertThat(server).isNull();
            return;
        }
        start(Map.of("IDEMPOTENCY_MODE", "atomic"));
        get("/orders"); // warm up, so the slow request below takes its key well within the pause
        String key = key();
        CompletableFuture<HttpResponse<String>> slow = http.sendAsync(request("/orders?delayMs=1500",
                        "Idempotency-Key", key, "Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(), HttpResponse.BodyHandlers.ofString());
        Thread.sleep(400);

        HttpResponse<String> duplicate = post("/orders?delayMs=1500", ORDER, "Idempotency-Key", key);
        HttpResponse<String> unkeyed = post("/orders", "{\"item\":\"pen\",\"quantity\":1}");
        JsonNode listedMeanwhile = json(get("/orders"));
        HttpResponse<String> first = slow.get(10, TimeUnit.SECONDS);
        HttpResponse<String> retry = post("/orders?delayMs=1500", ORDER, "Idempotency-Key", key);

        // Whichever took the key first ran; on a very slow machine that may be the "duplicate".
        assertThat(List.of(first.statusCode(), duplicate.statusCode())).containsExactlyInAnyOrder(201, 409);
        if (first.statusCode() == 201) {
            long unkeyedId = json(unkeyed).path("id").asLong();
            assertThat(json(first).path("id").asLong()).as("written before the pause").isLessThan(unkeyedId);
            assertThat(listedMeanwhile).as("written, not yet committed").hasSize(1);
            assertThat(listedMeanwhile.get(0).path("id").asLong()).isEqualTo(unkeyedId);
        }
        HttpResponse<String> created = first.statusCode() == 201 ? first : duplicate;
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.body()).isEqualTo(created.body());
        assertThat(json(get("/orders"))).hasSize(2);
        assertThat(json(get(created.headers().firstValue("Location").orElseThrow())))
                .isEqualTo(json(created));

        String partial = "{\"amount\":500,\"outcome\":\"partial\"}";
        String paymentKey = key();
        HttpResponse<String> attempt = post("/payments", partial, "Idempotency-Key", paymentKey);
        HttpResponse<String> again = post("/payments", partial, "Idempotency-Key", paymentKey);
        assertThat(replayed(again)).isFalse();
        assertThat(json(again).path("id").asLong()).isNotEqualTo(json(attempt).path("id").asLong());
        assertThat(json(get("/payments"))).hasSize(2);
    }

    /**
     * The path-spelling matrix of the test kit ({@link PathSpelling#matrix()}) against the
     * service, one dynamic test per spelling on one server: however the path is spelled, a key
     * creates at most one order and one payment (counted with {@code GET /orders} and
     * {@code GET /payments}), an answer is never another endpoint's, a raw {@code #} is refused.
     */
    @TestFactory
    Stream<DynamicTest> eachPathSpellingCreatesAtMostOneOrderAndOnePaymentPerKey() throws Exception {
        start(Map.of());
        PathSpellingChecks checks = new PathSpellingChecks(spellingService());
        return PathSpelling.matrix().stream().map(spelling -> dynamicTest(spelling.toString(), () -> checks.check(spelling)));
    }

    @Test
    void oneKeyAcrossEveryPathSpellingCreatesAtMostOneOrderAndOnePayment() throws Exception {
        start(Map.of());
        new PathSpellingChecks(spellingService()).checkOneKey();
    }

    private PathSpellingChecks.Service spellingService() {
        URI base = URI.create("http://127.0.0.1:" + server.port());
        return new PathSpellingChecks.Service() {
            @Override
            public RawResponse post(String target, String key) throws IOException {
                return RawHttp.post(base, target, key, PathSpellingChecks.BODY);
            }

            @Override
            public int runs(PathSpelling.Endpoint endpoint) throws Exception {
                return json(get(endpoint.path())).size();
            }

            @Override
            public OptionalInt serverRefusesFragmentsWith() {
                return ExampleContractTest.this.serverRefusesFragmentsWith();
            }
        };
    }

    @Test
    void withIdempotencyOffTheSameRoutesRunEveryTime() throws Exception {
        start(Map.of("IDEMPOTENCY", "off"));
        String key = key();

        HttpResponse<String> first = post("/orders", ORDER, "Idempotency-Key", key);
        HttpResponse<String> second = post("/orders", ORDER, "Idempotency-Key", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(replayed(second)).isFalse();
        assertThat(json(get("/orders"))).hasSize(2);
        assertThat(post("/payments", "{\"amount\":5}", "Idempotency-Key", key).statusCode()).isEqualTo(200);
    }
}
