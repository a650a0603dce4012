package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.framework.PurgeSettings;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the module offers beside the filters, on Jersey over a {@code JdbcStore} on PostgreSQL: the
 * feature's scheduled purge deletes expired records by itself and stops with the feature, and
 * {@link IdempotencyHealthResource} answers UP, or 503 DOWN with the reason when the table is missing.
 */
class HealthAndPurgeTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static PostgresTestSchema schema;
    private static HikariDataSource pool;
    private static JdbcStore store;
    private static IdempotencyEngine engine;
    private static IdempotencyFeature feature;
    private static JerseyServer server;

    @Path("/orders")
    public static class Orders {
        @POST
        public Response create() {
            return Response.status(201).entity("order " + RUNS.incrementAndGet()).build();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        schema = new PostgresTestSchema();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(schema.url());
        config.setUsername(PostgresTestSchema.USER);
        config.setPassword(PostgresTestSchema.PASSWORD);
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
        store = JdbcStore.builder(pool).build();
        store.createTableIfMissing();
        engine = new IdempotencyEngine(store, IdempotencyConfig.builder().build());
        PurgeSettings purge = new PurgeSettings();
        purge.setInterval(Duration.ofMillis(100));
        purge.setInitialDelay(Duration.ZERO);
        feature = IdempotencyFeature.builder(engine).store(store).purge(purge).build();
        server = JerseyServer.start(new ResourceConfig(Orders.class).register(feature)
                .register(IdempotencyHealthResource.class));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (feature != null) {
            feature.close();
        }
        if (engine != null) {
            engine.close();
        }
        if (pool != null) {
            pool.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    void healthIsUpWhileTheTableAnswers() throws Exception {
        HttpResponse<String> health = get(server, "/health");

        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        assertThat(health.body()).isEqualTo("{\"status\":\"UP\",\"components\":{\"idempotency\":{\"status\":\"UP\"}}}");
    }

    @Test
    void healthIsDownWithTheReasonWhenTheTableIsMissing() throws Exception {
        JdbcStore missing = JdbcStore.builder(pool).tableName("no_such_table").build();
        try (IdempotencyEngine noTable = new IdempotencyEngine(missing, IdempotencyConfig.builder().build());
                JerseyServer other = JerseyServer.start(new ResourceConfig()
                        .register(IdempotencyFeature.of(noTable)).register(IdempotencyHealthResource.class))) {
            HttpResponse<String> health = get(other, "/health");

            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).isEqualTo("{\"status\":\"DOWN\",\"components\":{\"idempotency\":"
                    + "{\"status\":\"DOWN\",\"details\":{\"reason\":\"NOT_PROVISIONED\"}}}}");
        }
    }

    @Test
    void withoutTheFeatureTheHealthResourceAnswers500() throws Exception {
        try (JerseyServer alone = JerseyServer.start(new ResourceConfig(IdempotencyHealthResource.class))) {
            assertThat(get(alone, "/health").statusCode()).isEqualTo(500);
        }
    }

    @Test
    void theFeaturePurgesExpiredRecordsByItselfAndKeepsLiveOnes() throws Exception {
        store.reserve(key("expired"), "f".repeat(64), Instant.now().minus(Duration.ofHours(2)), Duration.ofSeconds(30),
                Duration.ofHours(1));
        HttpResponse<String> first = post("live");
        HttpResponse<String> retry = post("live");

        await().atMost(Duration.ofSeconds(10)).until(() -> count("key = 'expired'") == 0);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(count("key = 'live'")).as("the live record stays").isEqualTo(1);
    }

    @Test
    void closingTheFeatureStopsItsPurge() throws Exception {
        PurgeSettings purge = new PurgeSettings();
        purge.setInterval(Duration.ofMillis(50));
        purge.setInitialDelay(Duration.ofMillis(200));
        JdbcStore other = JdbcStore.builder(pool).tableName("closed_purge").build();
        other.createTableIfMissing();
        IdempotencyFeature.builder(engine).store(other).purge(purge).build().close();
        other.reserve(key("expired"), "f".repeat(64), Instant.now().minus(Duration.ofHours(2)), Duration.ofSeconds(30),
                Duration.ofHours(1));

        Thread.sleep(600); // three times what the first run would have waited, had it not been closed
        assertThat(countIn("closed_purge", "true")).as("nothing purged after close()").isEqualTo(1);
    }

    @Test
    void aPurgeWithoutTheStoreOrWithANonsenseIntervalFailsTheBuild() {
        assertThatThrownBy(() -> IdempotencyFeature.builder(engine).purge().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("builder.store(store)");
        PurgeSettings zero = new PurgeSettings();
        zero.setInterval(Duration.ZERO);
        assertThatThrownBy(() -> IdempotencyFeature.builder(engine).store(store).purge(zero).build())
                .hasMessageContaining("interval must be positive");
    }

    private static RecordKey key(String key) {
        return new RecordKey("default", "POST", "/orders", key);
    }

    private static HttpResponse<String> post(String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(server.baseUri().resolve("/orders")).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(JerseyServer on, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(on.baseUri() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long count(String where) throws SQLException {
        return countIn(JdbcStore.DEFAULT_TABLE, where);
    }

    private static long countIn(String table, String where) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
