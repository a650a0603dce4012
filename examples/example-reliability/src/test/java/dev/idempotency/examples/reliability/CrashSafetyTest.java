package dev.idempotency.examples.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The service process killed with SIGKILL while a request's handler is running, then restarted,
 * and the client retrying with the same key.
 *
 * <p>Atomic mode: the reservation and the handler's writes share one transaction; the process is
 * killed after the handler's INSERT and before the commit (the example waits {@code delayMs}
 * there), so PostgreSQL rolls it back when the dead process's connection closes — no order and
 * no record remain — and the retry executes exactly once.
 *
 * <p>Reserve mode, for contrast: the reservation was committed before the handler ran, so the
 * record stays in flight; a retry is refused with {@code 409} (never executed twice) until the
 * lease lapses — the weakness the atomic mode removes.
 *
 * <p>Both run against each {@link ExampleService}: the Javalin example on {@code JdbcStore}, the
 * Vert.x example on {@code PgStore}, whose atomic mode writes the order through the reservation's
 * reactive connection, and the Spring Boot example on {@code JdbcStore}, whose atomic mode writes it
 * with {@code JdbcTemplate} in a {@code @Transactional} service that joins the reservation's
 * transaction as Spring's current one, and the WebFlux example on {@code R2dbcStore}, whose atomic
 * mode writes it with {@code DatabaseClient} in a {@code TransactionalOperator} that joins the
 * reservation's transaction as Spring's current reactive one, and the Quarkus example on
 * {@code JdbcStore}, whose atomic mode writes it in a {@code @Transactional} bean that joins the
 * reservation's JTA transaction, Agroal lending it the connection enlisted there. Before the kill
 * the test sees the order's INSERT and the reservation's held by the same database backend, inside
 * one open transaction.
 */
class CrashSafetyTest {

    private static final String SLOW = "/orders?delayMs=3000";
    /**
     * How long a freshly started service's first request may take to reach its handler: class
     * loading and the first connection, which a machine loaded by other work makes slow. Only the
     * patience; the 3 s the handler then waits is what the kill lands in.
     */
    private static final Duration FIRST_REQUEST = Duration.ofSeconds(30);

    private PostgresSchema schema;
    private final HttpClient http = Answer.client();

    @BeforeEach
    void createSchema() {
        schema = PostgresSchema.create("rel_crash");
    }

    @AfterEach
    void dropSchema() {
        schema.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ExampleService.class)
    void atomicModeKilledInsideTheTransactionLeavesNothingAndTheRetryRunsOnce(ExampleService example) throws Exception {
        String key = "crash-" + UUID.randomUUID();

        try (ExampleProcess service = start(example, "atomic", "atomic-1")) {
            CompletableFuture<HttpResponse<String>> pending = sendSlow(service.port(), key);
            // The example writes the order first and then waits delayMs, inside the transaction.
            awaitOrFail(this::orderWrittenButNotCommitted, FIRST_REQUEST,
                    "the handler's INSERT inside the reservation's open transaction");
            assertThat(orders()).as("the INSERT is not visible before the commit").isZero();
            assertThat(records(key)).as("nor is the reservation").isZero();

            service.kill();

            assertThat(pending).as("the client lost its connection").failsWithin(Duration.ofSeconds(10));
        }

        long killed = System.nanoTime();
        awaitOrFail(() -> schema.exampleBackendsInTransaction() == 0, Duration.ofSeconds(10),
                "PostgreSQL to roll back the dead process's transaction");
        System.out.println("[reliability] crash (" + example + ", atomic): killed after the handler's INSERT, before the commit; "
                + "PostgreSQL had rolled back " + (System.nanoTime() - killed) / 1_000_000 + " ms after the process died");
        assertThat(orders()).as("no order survives the crash").isZero();
        assertThat(records(key)).as("no idempotency record survives the crash").isZero();

        try (ExampleProcess restarted = start(example, "atomic", "atomic-2")) {
            Answer retry = Answer.post(http, restarted.port(), "/orders", key, Answer.ORDER, Duration.ofSeconds(10));
            assertThat(retry.status()).as(retry.describe()).isEqualTo(201);
            assertThat(retry.replayed()).as("the retry executes: " + retry.describe()).isFalse();
            assertThat(orders()).as("exactly one order after the retry").isEqualTo(1);
            assertThat(records(key)).isEqualTo(1);

            Answer again = Answer.post(http, restarted.port(), "/orders", key, Answer.ORDER, Duration.ofSeconds(10));
            assertThat(again.replayed()).as("a further retry is a replay: " + again.describe()).isTrue();
            assertThat(again.body()).isEqualTo(retry.body());
            assertThat(orders()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ExampleService.class)
    void reserveModeKilledMidRequestLeavesAnInFlightRecordThatRefusesTheRetry(ExampleService example) throws Exception {
        String key = "crash-" + UUID.randomUUID();

        try (ExampleProcess service = start(example, "reserve", "reserve-1")) {
            CompletableFuture<HttpResponse<String>> pending = sendSlow(service.port(), key);
            awaitOrFail(() -> records(key) == 1, FIRST_REQUEST, "the key to be reserved");
            Thread.sleep(500); // well inside the 3 s handler

            service.kill();

            assertThat(pending).as("the client lost its connection").failsWithin(Duration.ofSeconds(10));
        }

        assertThat(orders()).as("the handler had not written yet").isZero();
        assertThat(schema.queryLong("SELECT count(*) FROM idempotency_keys WHERE key = ? AND state = 'IN_FLIGHT'", key))
                .as("the committed reservation outlives the process").isEqualTo(1);

        try (ExampleProcess restarted = start(example, "reserve", "reserve-2")) {
            Answer retry = Answer.post(http, restarted.port(), SLOW, key, Answer.ORDER, Duration.ofSeconds(10));
            assertThat(retry.status()).as(retry.describe()).isEqualTo(409);
            assertThat(retry.problemCode()).hasValue("idempotency_request_in_progress");
            assertThat(orders()).as("not executed while the lease runs").isZero();
        }
    }

    private ExampleProcess start(ExampleService example, String mode, String name) throws Exception {
        return ExampleProcess.start(example, "crash-" + example.name().toLowerCase(Locale.ROOT) + "-" + name,
                Map.of("DATABASE_URL", schema.exampleUrl(), "IDEMPOTENCY_MODE", mode));
    }

    private CompletableFuture<HttpResponse<String>> sendSlow(int port, String key) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + SLOW))
                .timeout(Duration.ofSeconds(20))
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Answer.ORDER)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A backend of the service is inside a transaction and holds the lock an INSERT into
     * {@code example_orders} takes, which it keeps until commit or rollback — and the same backend
     * holds the one the reservation's INSERT into {@code idempotency_keys} took: the order is
     * written in the reservation's own transaction (for Spring and WebFlux, through the joined transaction),
     * not in one of its own that merely has not committed yet.
     */
    private boolean orderWrittenButNotCommitted() {
        return schema.queryLong("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                + " JOIN pg_stat_activity a ON a.pid = l.pid WHERE c.relname = 'example_orders'"
                + " AND l.mode = 'RowExclusiveLock' AND a.application_name = ? AND a.xact_start IS NOT NULL"
                + " AND EXISTS (SELECT 1 FROM pg_locks r JOIN pg_class rc ON rc.oid = r.relation"
                + " WHERE r.pid = l.pid AND rc.relname = 'idempotency_keys' AND r.mode = 'RowExclusiveLock')",
                schema.name()) > 0;
    }

    private long orders() {
        return schema.queryLong("SELECT count(*) FROM example_orders");
    }

    private long records(String key) {
        return schema.hasTable("idempotency_keys")
                ? schema.queryLong("SELECT count(*) FROM idempotency_keys WHERE key = ?", key) : 0;
    }

    private static void awaitOrFail(BooleanSupplier condition, Duration limit, String what) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + limit.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
