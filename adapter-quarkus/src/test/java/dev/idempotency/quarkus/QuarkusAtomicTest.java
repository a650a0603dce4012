package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The atomic mode on Quarkus: the JDBC store's reservation is a JTA transaction (Narayana) on the
 * Agroal data source, which a resource's {@code @Transactional} method joins, so its Hibernate ORM
 * entity, its JDBC write and the stored response commit together or not at all
 * ({@link ShipmentsResource}). Counts are read on connections of their own, outside it.
 */
@QuarkusTest
@TestProfile(QuarkusAtomicTest.Atomic.class)
@QuarkusTestResource(value = PostgresSchemaResource.class, restrictToAnnotatedClass = true)
class QuarkusAtomicTest {

    /** The module's test application in the atomic mode. */
    public static final class Atomic implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idempotency.mode", "atomic");
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URI base;

    @Inject
    AgroalDataSource dataSource;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void auditTable() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS shipment_audit (code TEXT NOT NULL)");
        }
    }

    @Test
    void theEntityTheJdbcWriteAndTheRecordBecomeVisibleTogetherAndTheRetryReplays() throws Exception {
        String key = key();
        String code = code();
        int runs = ShipmentsResource.RUNS.get();
        long records = records();

        CompletableFuture<HttpResponse<String>> first = http.sendAsync(ship(key, code, 1500),
                HttpResponse.BodyHandlers.ofString());
        awaitRuns(runs + 1);
        Thread.sleep(300); // inside the pause: both writes made, nothing committed
        long shipmentsMeanwhile = count("SELECT count(*) FROM shipment WHERE code = ?", code);
        long auditMeanwhile = count("SELECT count(*) FROM shipment_audit WHERE code = ?", code);
        long recordsMeanwhile = records();
        HttpResponse<String> duplicate = http.send(ship(key, code, 1500), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> created = first.get(20, TimeUnit.SECONDS);
        HttpResponse<String> retry = http.send(ship(key, code, 1500), HttpResponse.BodyHandlers.ofString());

        assertThat(List.of(shipmentsMeanwhile, auditMeanwhile, recordsMeanwhile - records))
                .as("nothing visible before the commit").containsExactly(0L, 0L, 0L);
        assertThat(duplicate.statusCode()).as(duplicate.body()).isEqualTo(409);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(created.body());
        assertThat(ShipmentsResource.RUNS.get()).isEqualTo(runs + 1);
        assertThat(count("SELECT count(*) FROM shipment WHERE code = ?", code)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM shipment_audit WHERE code = ?", code)).isEqualTo(1);
        assertThat(records()).isEqualTo(records + 1);
    }

    @Test
    void aTransactionalMethodThatFailsRollsBackItsWritesAndTheReservationAndTheRetryRunsAgain() throws Exception {
        String key = key();
        String code = code();
        int runs = ShipmentsResource.RUNS.get();
        long records = records();
        ShipmentsResource.FAIL_NEXT.set(true);

        HttpResponse<String> refused = http.send(ship(key, code, 0), HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).as("the mapper's answer stands").isEqualTo(422);
        assertThat(refused.body()).isEqualTo("{\"refused\":true}");
        assertThat(count("SELECT count(*) FROM shipment WHERE code = ?", code)).isZero();
        assertThat(count("SELECT count(*) FROM shipment_audit WHERE code = ?", code)).isZero();
        assertThat(records()).as("no record: the key is free").isEqualTo(records);

        HttpResponse<String> retry = http.send(ship(key, code, 0), HttpResponse.BodyHandlers.ofString());

        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(ShipmentsResource.RUNS.get()).isEqualTo(runs + 2);
        assertThat(count("SELECT count(*) FROM shipment WHERE code = ?", code)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM shipment_audit WHERE code = ?", code)).isEqualTo(1);
        assertThat(records()).isEqualTo(records + 1);
    }

    /**
     * An exception no mapper answers: Quarkus REST's 500, everything rolled back, the key released,
     * and the worker threads left in no transaction (each later request commits on its own).
     */
    @Test
    void anUnmappedExceptionRollsBackEverythingAndLeavesNoTransactionBehind() throws Exception {
        String key = key();
        String code = code();
        long records = records();
        ShipmentsResource.BREAK_NEXT.set(true);

        HttpResponse<String> broken = http.send(ship(key, code, 0), HttpResponse.BodyHandlers.ofString());

        assertThat(broken.statusCode()).isEqualTo(500);
        assertThat(count("SELECT count(*) FROM shipment WHERE code = ?", code)).isZero();
        assertThat(count("SELECT count(*) FROM shipment_audit WHERE code = ?", code)).isZero();
        assertThat(records()).isEqualTo(records);
        assertThat(http.send(ship(key, code, 0), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
        assertEachCommitsOnItsOwn();
    }

    /**
     * Hibernate writes the entity when the transaction commits, after the response was captured:
     * a duplicate code fails there. The client must not get the success its writes lost, nothing is
     * stored, and a retry runs again.
     */
    @Test
    void aWriteThatFailsAtTheCommitAnswersNoSuccessAndStoresNothing() throws Exception {
        String code = code();
        assertThat(http.send(ship(key(), code, 0), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
        String key = key();
        long records = records();
        int runs = ShipmentsResource.RUNS.get();

        HttpResponse<String> failed = http.send(ship(key, code, 0), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> retry = http.send(ship(key, code, 0), HttpResponse.BodyHandlers.ofString());

        assertThat(failed.statusCode()).as(failed.body()).isGreaterThanOrEqualTo(500);
        assertThat(failed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(failed.body()).doesNotContain("duplicate key").doesNotContain("Exception");
        assertThat(retry.statusCode()).as("ran again, failed again").isEqualTo(failed.statusCode());
        assertThat(ShipmentsResource.RUNS.get()).isEqualTo(runs + 2);
        assertThat(count("SELECT count(*) FROM shipment WHERE code = ?", code)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM shipment_audit WHERE code = ?", code)).as("rolled back with it")
                .isEqualTo(1);
        assertThat(records()).isEqualTo(records);
    }

    @Test
    void concurrentRequestsUnderOneKeyRunTheMethodOnce() throws Exception {
        int threads = 8;
        String key = key();
        String code = code();
        int runs = ShipmentsResource.RUNS.get();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return http.send(ship(key, code, 300), HttpResponse.BodyHandlers.ofString());
                }));
            }
            start.countDown();
            int created = 0;
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
                assertThat(response.statusCode()).as(response.body()).isIn(201, 409);
                if (response.statusCode() == 201) {
                    created++;
                    assertThat(JSON.readTree(response.body()).path("run").asInt()).isEqualTo(runs + 1);
                }
            }
            assertThat(created).isPositive();
        } finally {
            pool.shutdownNow();
        }
        assertThat(ShipmentsResource.RUNS.get()).isEqualTo(runs + 1);
        assertThat(count("SELECT count(*) FROM shipment WHERE code = ?", code)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM shipment_audit WHERE code = ?", code)).isEqualTo(1);
    }

    /**
     * A {@code CompletionStage} resource would run on another thread, outside the transaction bound
     * to the request's: refused before it runs, nothing stored. The worker threads go on serving
     * {@code @Transactional} requests in transactions of their own.
     */
    @Test
    void anAsynchronousResourceIsRefusedAndLeavesNoTransactionBehind() throws Exception {
        long records = records();
        int later = ShipmentsResource.LATER.get();

        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(base.resolve("/app/shipments/later"))
                .header("Idempotency-Key", key()).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(500);
        assertThat(JSON.readTree(refused.body()).path("code").asText()).isEqualTo("idempotency_async_not_atomic");
        assertThat(ShipmentsResource.LATER.get()).isEqualTo(later);
        assertThat(records()).isEqualTo(records);
        assertEachCommitsOnItsOwn();
    }

    /** Unkeyed requests, more than the workers that served the test's: each commits in a transaction of its own. */
    private void assertEachCommitsOnItsOwn() throws Exception {
        for (int i = 0; i < 24; i++) {
            String code = code();
            HttpResponse<String> unkeyed = http.send(HttpRequest.newBuilder(
                    base.resolve("/app/shipments?code=" + code + "&delayMs=0")).POST(HttpRequest.BodyPublishers.noBody())
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unkeyed.statusCode()).as(unkeyed.body()).isEqualTo(201);
            assertThat(count("SELECT count(*) FROM shipment WHERE code = ?", code)).isEqualTo(1);
        }
    }

    private HttpRequest ship(String key, String code, long delayMs) {
        return HttpRequest.newBuilder(base.resolve("/app/shipments?code=" + code + "&delayMs=" + delayMs))
                .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private void awaitRuns(int runs) throws InterruptedException {
        for (int i = 0; i < 200 && ShipmentsResource.RUNS.get() < runs; i++) {
            Thread.sleep(25);
        }
        assertThat(ShipmentsResource.RUNS.get()).isGreaterThanOrEqualTo(runs);
    }

    private long records() throws SQLException {
        return count("SELECT count(*) FROM quarkus_keys WHERE path = ?", "/app/shipments");
    }

    private long count(String sql, String value) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }

    private static String code() {
        return "c-" + UUID.randomUUID();
    }
}
