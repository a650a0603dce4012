package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

    /** A resource that throws releases its key, also when an exception mapper answers a 2xx (as on Jersey). */
    @Test
    void aResourceThatThrowsReleasesItsKeyEvenWhenMappedToA2xx() throws Exception {
        String key = "key-" + UUID.randomUUID();
        int before = OrdersResource.DECLINED.get();

        HttpResponse<String> first = post("/app/declined", key);
        HttpResponse<String> retry = post("/app/declined", key);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("released, not stored").isEmpty();
        assertThat(OrdersResource.DECLINED.get() - before).isEqualTo(2);
    }

    private HttpResponse<String> post(String path, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
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
