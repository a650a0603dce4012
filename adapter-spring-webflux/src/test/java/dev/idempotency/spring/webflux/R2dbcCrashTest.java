package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link R2dbcOrderService} as a process of its own, killed with SIGKILL after the handler's
 * INSERT and before the commit: PostgreSQL rolls the order back with the reservation, and the
 * retry, on a restarted service, runs the handler once.
 */
class R2dbcCrashTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static PostgresTestSchema schema;

    @BeforeAll
    static void createSchema() {
        schema = new PostgresTestSchema();
        R2dbcOrderService.createTables(schema);
    }

    @AfterAll
    static void dropSchema() {
        schema.close();
    }

    @Test
    void killedInsideTheTransactionLeavesNothingAndTheRetryRunsOnce() throws Exception {
        String key = "crash-" + UUID.randomUUID();
        String first = "crash-1-" + schema.name;

        Service service = Service.start(first);
        try {
            CompletableFuture<HttpResponse<String>> pending = HTTP.sendAsync(request(service.port,
                    "/orders?holdMs=60000", key), HttpResponse.BodyHandlers.ofString());
            awaitOrFail(() -> orderWrittenButNotCommitted(first), "the order's INSERT in the reservation's transaction");
            assertThat(orders(key)).as("the INSERT is not visible before the commit").isZero();

            service.kill();

            assertThat(pending).as("the client lost its connection").failsWithin(Duration.ofSeconds(10));
        } finally {
            service.kill();
        }
        awaitOrFail(() -> backendsInTransaction(first) == 0, "PostgreSQL to roll back the dead process's transaction");
        assertThat(orders(key)).as("no order survives the crash").isZero();
        assertThat(records(key)).as("no idempotency record survives the crash").isZero();

        Service restarted = Service.start("crash-2-" + schema.name);
        try {
            HttpResponse<String> retry = HTTP.send(request(restarted.port, "/orders", key),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(retry.statusCode()).as(retry.body()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("the retry runs").isEmpty();
            HttpResponse<String> again = HTTP.send(request(restarted.port, "/orders", key),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(again.body()).isEqualTo(retry.body());
            assertThat(orders(key)).as("exactly one order").isEqualTo(1);
            assertThat(records(key)).isEqualTo(1);
        } finally {
            restarted.kill();
        }
    }

    /** A JVM running {@link R2dbcOrderService} on this class's schema, its connections named {@code name}. */
    private record Service(Process process, int port) {

        static Service start(String name) throws Exception {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", classPath(), R2dbcOrderService.class.getName()));
            command.addAll(List.of(R2dbcOrderService.arguments(schema, name)));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        if (line.startsWith("PORT=")) {
                            int found = Integer.parseInt(line.substring(5));
                            Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "drain-" + name);
                            drain.setDaemon(true);
                            drain.start();
                            return found;
                        }
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                throw new IllegalStateException("The service " + name + " ended before it listened");
            });
            try {
                return new Service(process, port.get(60, TimeUnit.SECONDS));
            } catch (Exception e) {
                process.destroyForcibly();
                throw e;
            }
        }

        /** SIGKILL: no shutdown hook, no rollback sent; PostgreSQL sees the connection drop. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }

        private static String classPath() {
            String modules = System.getProperty("jdk.module.path", "");
            String classes = System.getProperty("java.class.path", "");
            return modules.isEmpty() ? classes : classes + File.pathSeparator + modules;
        }
    }

    private static HttpRequest request(int port, String path, String key) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build();
    }

    /**
     * A backend of the service holds the lock the INSERT into {@code orders} takes, inside a
     * transaction, and the same backend holds the one the reservation's INSERT took: the order is
     * written in the reservation's own transaction.
     */
    private static boolean orderWrittenButNotCommitted(String name) {
        return count("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                + " JOIN pg_stat_activity a ON a.pid = l.pid WHERE c.relname = 'orders'"
                + " AND l.mode = 'RowExclusiveLock' AND a.application_name = ? AND a.xact_start IS NOT NULL"
                + " AND EXISTS (SELECT 1 FROM pg_locks r JOIN pg_class rc ON rc.oid = r.relation"
                + " WHERE r.pid = l.pid AND rc.relname = 'idempotency_keys' AND r.mode = 'RowExclusiveLock')", name) > 0;
    }

    private static long backendsInTransaction(String name) {
        return count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND xact_start IS NOT NULL", name);
    }

    private static long orders(String key) {
        return count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key);
    }

    private static long records(String key) {
        return count("SELECT count(*) FROM idempotency_keys WHERE key = ?", key);
    }

    private static long count(String sql, String value) {
        try (var c = DriverManager.getConnection(schema.url(), PostgresTestSchema.USER, PostgresTestSchema.PASSWORD);
             var statement = c.prepareStatement(sql)) {
            statement.setString(1, value);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitOrFail(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
