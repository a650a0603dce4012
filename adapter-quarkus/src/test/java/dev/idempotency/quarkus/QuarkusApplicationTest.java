package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.internal.RawHttp;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The module's wiring in a Quarkus application: {@code idempotency.*} from application.properties,
 * the JDBC store over the Agroal data source (its table created at start), the readiness check
 * and the meters.
 */
@QuarkusTest
@QuarkusTestResource(PostgresSchemaResource.class)
class QuarkusApplicationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BODY = "{\"item\":\"book\"}";

    @TestHTTPResource("/")
    URI base;

    @Inject
    IdempotencyEngine engine;

    @Inject
    Store store;

    @Inject
    AgroalDataSource dataSource;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theSettingsComeFromApplicationProperties() {
        IdempotencyConfig config = engine.config();

        assertThat(config.ttl()).isEqualTo(Duration.ofHours(2));
        assertThat(config.lease()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.inFlightWait()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.maxRequestBodyBytes()).isEqualTo(65536);
        assertThat(config.replayedHeaders()).containsExactlyInAnyOrder("Location", "X-Order-Id");
        assertThat(config.mode()).isEqualTo(Mode.RESERVE);
        assertThat(config.headerName()).as("a default left as the engine's").isEqualTo("Idempotency-Key");
        assertThat(store).isInstanceOf(JdbcStore.class);
    }

    @Test
    void aCustomizerBeanIsAppliedOnceToTheEngine() throws Exception {
        String key = "key-" + UUID.randomUUID();
        int before = RecordingCustomizer.EVENTS.size();

        assertThat(post("/app/orders", key).statusCode()).isEqualTo(201);

        assertThat(RecordingCustomizer.CALLS.get()).isEqualTo(1);
        assertThat(RecordingCustomizer.EVENTS.size()).as("its listener hears the request").isGreaterThan(before);
    }

    @Test
    void aRetryIsReplayedFromTheDatabaseWithTheConfiguredHeaders() throws Exception {
        String key = "key-" + UUID.randomUUID();
        int before = OrdersResource.ORDERS.get();

        HttpResponse<String> first = post("/app/orders", key);
        HttpResponse<String> retry = post("/app/orders", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("X-Order-Id")).isEqualTo(first.headers().firstValue("X-Order-Id"));
        assertThat(OrdersResource.ORDERS.get()).isEqualTo(before + 1);
        assertThat(rows()).isPositive();
    }

    /**
     * Quarkus REST decodes a path and resolves its dot segments before it matches a resource, so
     * these spellings reach {@code /app/orders} although none matches {@code /app/**} as written:
     * under a key each is refused, not run outside the Idempotency-Key handling; without one it runs.
     */
    @Test
    void aKeyedSpellingThatQuarkusRoutesToACoveredPathIsRefusedNotRunUncovered() throws Exception {
        for (String path : new String[] {"/%61pp/orders", "/x/%2E%2E/app/orders"}) {
            int before = OrdersResource.ORDERS.get();

            HttpResponse<String> keyed = post(path, "key-" + UUID.randomUUID());

            assertThat(keyed.statusCode()).as(path + ": " + keyed.body()).isEqualTo(400);
            assertThat(JSON.readTree(keyed.body()).path("code").asText()).isEqualTo("idempotency_path_invalid");
            assertThat(OrdersResource.ORDERS.get()).as(path).isEqualTo(before);
            HttpResponse<String> unkeyed = http.send(HttpRequest.newBuilder(base.resolve(path))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unkeyed.statusCode()).as(path + " without a key").isEqualTo(201);
            assertThat(OrdersResource.ORDERS.get()).as(path).isEqualTo(before + 1);
        }
    }

    @Test
    void readinessIsDownWithTheReasonWhileTheTableIsMissing() throws Exception {
        assertThat(idempotencyCheck().path("status").asText()).isEqualTo("UP");

        sql("ALTER TABLE quarkus_keys RENAME TO quarkus_keys_away");
        try {
            HttpResponse<String> ready = get("/q/health/ready");
            JsonNode check = idempotencyCheck(ready);
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(check.path("status").asText()).isEqualTo("DOWN");
            assertThat(check.path("data").path("reason").asText()).isEqualTo("NOT_PROVISIONED");
        } finally {
            sql("ALTER TABLE quarkus_keys_away RENAME TO quarkus_keys");
        }
        assertThat(idempotencyCheck().path("status").asText()).isEqualTo("UP");
    }

    @Test
    void theEngineMetersAreInTheApplicationsRegistry() throws Exception {
        post("/app/orders", "key-" + UUID.randomUUID());

        String metrics = get("/q/metrics").body();

        assertThat(metrics).contains("idempotency_requests_total{").contains("outcome=\"executed_stored\"")
                .contains("idempotency_store_seconds_count{");
    }

    private JsonNode idempotencyCheck() throws Exception {
        return idempotencyCheck(get("/q/health/ready"));
    }

    private static JsonNode idempotencyCheck(HttpResponse<String> ready) throws Exception {
        for (JsonNode check : JSON.readTree(ready.body()).path("checks")) {
            if (check.path("name").asText().equals("idempotency")) {
                return check;
            }
        }
        throw new AssertionError("no idempotency check in " + ready.body());
    }

    /** What the client saw decides: a resource that throws, answered 200 by an exception mapper, is stored. */
    @Test
    void aResourceThatThrowsIsStoredWhenAMapperAnswersA2xx() throws Exception {
        String key = "key-" + UUID.randomUUID();
        int before = OrdersResource.DECLINED.get();

        HttpResponse<String> first = post("/app/declined", key);
        HttpResponse<String> retry = post("/app/declined", key);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("stored like any 2xx").hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(OrdersResource.DECLINED.get() - before).isEqualTo(1);
    }

    /** Quarkus REST hands {@code ;parameters} to the resource: under a key they are refused, as on Jersey. */
    @Test
    void aKeyedRequestWhosePathCarriesParametersIsRefused() throws Exception {
        for (String path : new String[] {"/app/orders;v=1", "/app/orders;x", "/app;v=2/orders"}) {
            int before = OrdersResource.ORDERS.get();

            HttpResponse<String> keyed = post(path, "key-" + UUID.randomUUID());
            HttpResponse<String> unkeyed = http.send(HttpRequest.newBuilder(base.resolve(path))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(keyed.statusCode()).as(path + ": " + keyed.body()).isEqualTo(400);
            assertThat(JSON.readTree(keyed.body()).path("code").asText()).isEqualTo("idempotency_path_invalid");
            assertThat(unkeyed.statusCode()).as(path + " without a key").isEqualTo(201);
            assertThat(OrdersResource.ORDERS.get()).as(path).isEqualTo(before + 1);
        }
    }

    /** {@code +} and {@code %2B} reach the resource as one id: one record, the re-spelled retry replays. */
    @Test
    void spellingsThatGiveTheResourceOneIdAreOneRecord() throws Exception {
        String key = "key-" + UUID.randomUUID();
        int before = OrdersResource.ITEMS.get();
        OrdersResource.ITEM_IDS.clear();

        HttpResponse<String> first = post("/app/items/a+b", key);
        HttpResponse<String> respelled = post("/app/items/a%2Bb", key);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(respelled.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(respelled.body()).isEqualTo(first.body());
        assertThat(OrdersResource.ITEM_IDS).containsExactly("a+b");
        assertThat(OrdersResource.ITEMS.get() - before).isEqualTo(1);
    }

    @Test
    void aReplayed204CarriesNoContentType() throws Exception {
        String key = "key-" + UUID.randomUUID();

        HttpResponse<String> first = post("/app/empty", key);
        HttpResponse<String> retry = post("/app/empty", key);

        assertThat(first.statusCode()).isEqualTo(204);
        assertThat(retry.statusCode()).isEqualTo(204);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.headers().firstValue("Content-Type")).as("as the first had none").isEmpty();
    }

    /** Quarkus REST sends the status line at the stream's flush: the client saw 201, so a retry is told so. */
    @Test
    void aStreamThatFailsAfterItsStatusLineWentOutIsAppliedOnce() throws Exception {
        String key = "key-" + UUID.randomUUID();
        int before = OrdersResource.STREAMED.get();

        String statusLine;
        try (Socket socket = RawHttp.sendAndHold(URI.create("http://127.0.0.1:" + base.getPort()),
                "/app/broken-stream", key, BODY)) {
            socket.setSoTimeout(10_000);
            statusLine = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1)).readLine();
        }
        HttpResponse<String> retry = post("/app/broken-stream", key);

        assertThat(statusLine).startsWith("HTTP/1.1 201");
        assertThat(retry.statusCode()).isEqualTo(410);
        assertThat(retry.body()).contains("(status 201)");
        assertThat(OrdersResource.STREAMED.get() - before).isEqualTo(1);
    }

    /**
     * A client that goes away from a {@code Uni} resource: Quarkus REST cancels it, so its answer is
     * never seen; the key stays in flight (409) rather than letting a retry run beside it.
     */
    @Test
    void aClientThatLeavesACancelledUniLeavesItsKeyInFlight() throws Exception {
        String key = "key-" + UUID.randomUUID();
        String target = "/app/slow-reactive?delayMs=3000";
        int before = OrdersResource.SLOW_REACTIVE.get();
        URI root = URI.create("http://127.0.0.1:" + base.getPort());

        try (Socket ignored = RawHttp.sendAndHold(root, target, key, BODY)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (OrdersResource.SLOW_REACTIVE.get() == before && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        // Retries until well after the Uni would have answered: a released key would let one run.
        long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        while (System.nanoTime() < until) {
            HttpResponse<String> retry = post(target, key);
            assertThat(retry.statusCode()).as(retry.body()).isEqualTo(409);
            assertThat(OrdersResource.SLOW_REACTIVE.get() - before).as("runs").isEqualTo(1);
            Thread.sleep(100);
        }
    }

    private HttpResponse<String> post(String path, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private long rows() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT count(*) FROM quarkus_keys")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void sql(String statement) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
