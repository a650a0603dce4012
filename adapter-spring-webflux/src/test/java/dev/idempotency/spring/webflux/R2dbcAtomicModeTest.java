package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.r2dbc.R2dbcStore;
import dev.idempotency.testkit.internal.AtOnce;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The atomic mode over {@link R2dbcStore} on PostgreSQL (a schema of its own), behind a real Netty
 * server: the handler's order, written through Spring's {@code DatabaseClient} (directly or in a
 * {@code @Transactional} method), commits with the stored response or rolls back with it
 * ({@link R2dbcOrderService}).
 */
class R2dbcAtomicModeTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static PostgresTestSchema schema;
    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void start() {
        schema = new PostgresTestSchema();
        R2dbcOrderService.createTables(schema);
        context = new SpringApplication(R2dbcOrderService.class).run(R2dbcOrderService.arguments(schema, "atomic-test"));
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        schema.close();
    }

    @Test
    void theStoredResponseAndTheOrderCommitTogether() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = R2dbcOrderService.EXECUTIONS.get();

        HttpResponse<String> first = post("/orders", key);
        HttpResponse<String> retry = post("/orders", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(R2dbcOrderService.EXECUTIONS.get() - before).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE key = ? AND state = 'COMPLETED'", key))
                .isEqualTo(1);
    }

    @Test
    void twentyDuplicatesAtOnceRunTheHandlerOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = R2dbcOrderService.EXECUTIONS.get();

        List<HttpResponse<String>> responses = AtOnce.run(20, () -> post("/orders?delayMs=300", key));

        assertThat(R2dbcOrderService.EXECUTIONS.get() - before).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isEqualTo(1);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(201));
        assertThat(responses.stream().filter(r -> r.headers().firstValue("Idempotent-Replayed").isEmpty()))
                .hasSize(1);
    }

    @Test
    void aHandlerThatWritesThenFailsLeavesNeitherTheOrderNorARecord() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = R2dbcOrderService.EXECUTIONS.get();

        HttpResponse<String> failed = post("/orders?fail=true", key);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isZero();
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE key = ?", key)).isZero();

        HttpResponse<String> retry = post("/orders", key);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(R2dbcOrderService.EXECUTIONS.get() - before).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isEqualTo(1);
    }

    /**
     * A {@code @Transactional} method joins the request's transaction: Spring does not commit when
     * it returns (the order stays invisible while the handler goes on), the engine commits it with
     * the stored response.
     */
    @Test
    void aTransactionalMethodJoinsAndCommitsWithTheResponse() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = R2dbcOrderService.TRANSACTIONAL_WRITES.get();

        CompletableFuture<HttpResponse<String>> pending = HTTP.sendAsync(request("/transactional-orders?holdMs=1000",
                key), HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (R2dbcOrderService.TRANSACTIONAL_WRITES.get() == before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(R2dbcOrderService.TRANSACTIONAL_WRITES.get()).as("the @Transactional method returned")
                .isEqualTo(before + 1);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key))
                .as("not committed when the @Transactional method returned").isZero();

        HttpResponse<String> answered = pending.get(10, TimeUnit.SECONDS);
        assertThat(answered.statusCode()).isEqualTo(201);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE key = ? AND state = 'COMPLETED'", key))
                .isEqualTo(1);
    }

    /** The handler swallows its {@code @Transactional} method's failure and answers 201: nothing commits. */
    @Test
    void aFailedTransactionalMethodRollsTheWholeRequestBack() throws Exception {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> answered = post("/checked-orders", key);

        assertThat(answered.statusCode()).isEqualTo(500);
        assertThat(answered.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(answered.body()).contains("Transaction rolled back");
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isZero();
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE key = ?", key)).isZero();
    }

    private static long count(String sql, String key) throws Exception {
        try (var c = DriverManager.getConnection(schema.url(), PostgresTestSchema.USER, PostgresTestSchema.PASSWORD);
             var statement = c.prepareStatement(sql)) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static HttpResponse<String> post(String path, String key) throws Exception {
        return HTTP.send(request(path, key), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(String path, String key) {
        return HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build();
    }
}
