package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StoredResponse;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * idempotency-jdbc's PostgresTableLockTest for {@link PgStore}: a table lock on
 * {@code idempotency_keys} — what a migration, {@code LOCK TABLE … IN SHARE MODE} or
 * {@code VACUUM FULL} takes — held for three seconds while four clients keep sending fresh keys
 * through the engine: no fresh key is answered {@code 409}, every request is answered within the
 * store's statement timeout (1 s) plus one second, and the ones that could not get through are
 * {@code 503} "busy" with {@code Retry-After}. And: the many failures leave the pool (four
 * connections) whole, and the pooled sessions' own {@code statement_timeout} untouched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgTableLockTest {

    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration BOUND = STATEMENT_TIMEOUT.plusSeconds(1);
    private static final long LOCK_MILLIS = 3_000;
    private static final int CLIENTS = 4;
    private static final int POOL_SIZE = 4;
    private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");
    private static final String FP = "a".repeat(64);
    private static final StoredResponse CREATED = new StoredResponse(201, "application/json", Map.of(),
            "{\"order\":1}".getBytes(StandardCharsets.UTF_8));

    private PgTestDatabase db;

    @BeforeAll
    void createSchema() {
        db = new PgTestDatabase();
        await(PgStore.create(db.pool("lock-setup", 1)).createTableIfMissing());
    }

    @AfterAll
    void dropSchema() {
        db.close();
    }

    private enum Phase { BEFORE, DURING, AFTER }

    /** One request's answer and how long it took, from {@code beforeAsync} to the reply. */
    private record Answer(int status, String detail, boolean retryAfter, long millis, Phase phase) {
        boolean served() {
            return status == 201;
        }
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"RESERVE", "ATOMIC"})
    void aTableLockUnderLoadIsAnswered503BusyWithinTheTimeoutNeverAs409(Mode mode) throws Exception {
        // One connection per client, and the one the engine's persist retries may hold (a completion
        // that the lock timed out is asked again in the background, one at a time per engine).
        Pool pool = db.pool("lock-" + mode, CLIENTS + 1);
        PgStore store = PgStore.builder(pool).statementTimeout(STATEMENT_TIMEOUT).build();
        IdempotencyConfig config = IdempotencyConfig.builder().mode(mode).renewLease(false).build();
        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        AtomicReference<Phase> phase = new AtomicReference<>(Phase.BEFORE);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        SqlConnection locker = await(db.pool("locker-" + mode, 1).getConnection());
        try (IdempotencyEngine engine = new IdempotencyEngine(store, config)) {
            List<java.util.concurrent.Future<?>> running = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                running.add(clients.submit(() -> {
                    while (!stop.get()) {
                        answers.add(send(engine, phase.get()));
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> served(answers, Phase.BEFORE) >= 10);
            await(locker.query("BEGIN; LOCK TABLE idempotency_keys IN SHARE MODE").execute());
            phase.set(Phase.DURING);
            Thread.sleep(LOCK_MILLIS); // the scenario: a lock held this long
            phase.set(Phase.AFTER);
            await(locker.query("ROLLBACK").execute());
            await().atMost(Duration.ofSeconds(30)).until(() -> served(answers, Phase.AFTER) >= 10);
            stop.set(true);
            for (java.util.concurrent.Future<?> f : running) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            clients.shutdownNow();
            await(locker.close());
        }

        Map<String, Integer> byAnswer = new TreeMap<>();
        answers.forEach(a -> byAnswer.merge(a.phase() + " " + a.status()
                + (a.detail().isEmpty() ? "" : " " + a.detail()), 1, Integer::sum));
        long slowest = answers.stream().mapToLong(Answer::millis).max().orElse(0);
        long slowestDuring = answers.stream().filter(a -> a.phase() == Phase.DURING).mapToLong(Answer::millis)
                .max().orElse(0);
        System.out.printf("PgStore table lock %s: %d answers %s, slowest %d ms (during the lock %d ms)%n", mode,
                answers.size(), byAnswer, slowest, slowestDuring);

        assertThat(answers).as("fresh keys are never answered in flight")
                .noneMatch(a -> a.status() == 409);
        assertThat(answers).as("every answer within the statement timeout plus one second")
                .allMatch(a -> a.millis() <= BOUND.toMillis(), "took at most " + BOUND.toMillis() + " ms");
        assertThat(answers).as("only the handler's 201 or 503 busy with Retry-After")
                .allMatch(a -> a.served() || a.status() == 503 && a.detail().contains("busy") && a.retryAfter());
        assertThat(answers.stream().filter(a -> a.phase() == Phase.DURING && a.status() == 503))
                .as("the lock held requests up (else this test proves nothing)").isNotEmpty();
        assertThat(answers.stream().filter(a -> a.phase() == Phase.BEFORE && a.served()).count())
                .as("served before the lock").isGreaterThanOrEqualTo(10);
        assertThat(answers.stream().filter(a -> a.phase() == Phase.AFTER && a.served()).count())
                .as("served after the lock").isGreaterThanOrEqualTo(10);
        assertPoolWholeAndSessionsUntouched(pool, store);
    }

    /**
     * Many statements cancelled by the statement timeout and many atomic reservations that waited
     * for a table lock, in both modes, on a pool of four: afterwards four transactions at once
     * still get their connections promptly, no backend is left in a transaction, and no pooled
     * session keeps the store's statement timeout.
     */
    @Test
    void manyBusyFailuresLeaveThePoolWholeAndTheSessionsUntouched() {
        Pool pool = db.pool("leak", POOL_SIZE);
        PgStore store = PgStore.builder(pool).statementTimeout(Duration.ofMillis(200)).build();
        SqlConnection locker = await(db.pool("leak-locker", 1).getConnection());
        List<Throwable> failures = new ArrayList<>();
        await(locker.query("BEGIN; LOCK TABLE idempotency_keys IN ACCESS EXCLUSIVE MODE").execute());
        try {
            for (int batch = 0; batch < 5; batch++) {
                List<CompletionStage<?>> calls = new ArrayList<>();
                for (int i = 0; i < POOL_SIZE; i++) {
                    calls.add(store.reserve(newKey(), FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1)));
                    calls.add(store.find(newKey(), NOW));
                    calls.add(store.atomic().orElseThrow().reserve(newKey(), FP, NOW, Duration.ofSeconds(30),
                            Duration.ofHours(1), Duration.ZERO));
                    // A wait longer than the statement timeout: the statement timeout ends it.
                    calls.add(store.atomic().orElseThrow().reserve(newKey(), FP, NOW, Duration.ofSeconds(30),
                            Duration.ofHours(1), Duration.ofSeconds(10)));
                }
                for (CompletionStage<?> call : calls) {
                    failures.add(failureOf(call));
                }
            }
        } finally {
            await(locker.query("ROLLBACK").execute());
            await(locker.close());
        }
        assertThat(failures).hasSize(5 * POOL_SIZE * 4).allSatisfy(f -> {
            assertThat(f).isInstanceOf(StorageUnavailableException.class);
            assertThat(((StorageUnavailableException) f).reason()).isEqualTo(Reason.BUSY);
        });
        assertThat(failures).as("some were cancelled by the statement timeout")
                .anyMatch(f -> "57014".equals(PgFailures.sqlState(f.getCause())));
        assertPoolWholeAndSessionsUntouched(pool, store);
    }

    /** Four atomic reservations open at once on the pool of four, each promptly; then no leftovers. */
    private void assertPoolWholeAndSessionsUntouched(Pool pool, PgStore store) {
        String sessionDefault = db.adminExecute("SHOW statement_timeout").iterator().next().getString(0);
        long start = System.nanoTime();
        List<Future<AsyncReserveResult>> open = new ArrayList<>();
        for (int i = 0; i < POOL_SIZE; i++) {
            open.add(Future.fromCompletionStage(store.atomic().orElseThrow().reserve(newKey(), FP, NOW, Duration.ofSeconds(30),
                    Duration.ofHours(1), Duration.ZERO)));
        }
        List<PgAtomicReservation> held = new ArrayList<>();
        for (Future<AsyncReserveResult> f : open) {
            AsyncReserveResult result = await(f);
            assertThat(result).isInstanceOf(AsyncReserveResult.Acquired.class);
            held.add((PgAtomicReservation) ((AsyncReserveResult.Acquired) result).reservation());
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        // The pool's connectionTimeout is 2 s: a connection missing from the pool would fail one of them.
        assertThat(millis).as("all four connections were free").isLessThan(2_000);
        for (PgAtomicReservation reservation : held) {
            assertThat(await(reservation.connection().query("SHOW statement_timeout").execute()).iterator().next()
                    .getString(0)).as("the handler runs under the session's statement timeout").isEqualTo(sessionDefault);
        }
        for (PgAtomicReservation reservation : held) {
            assertThat(await(reservation.complete(CREATED))).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> db.adminExecute(
                "SELECT 1 FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND application_name LIKE '%-"
                        + db.schema + "'").rowCount() == 0);
        for (int i = 0; i < POOL_SIZE; i++) {
            assertThat(await(pool.query("SHOW statement_timeout").execute()).iterator().next().getString(0))
                    .as("no pooled session keeps the store's statement timeout").isEqualTo(sessionDefault);
        }
    }

    private static RecordKey newKey() {
        return new RecordKey("t", "POST", "/orders", UUID.randomUUID().toString());
    }

    private static Throwable failureOf(CompletionStage<?> stage) {
        try {
            Object value = await(stage);
            throw new AssertionError("expected a failure, got " + value);
        } catch (StorageUnavailableException e) {
            return e;
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static long served(ConcurrentLinkedQueue<Answer> answers, Phase phase) {
        return answers.stream().filter(a -> a.phase() == phase && a.served()).count();
    }

    private static Answer send(IdempotencyEngine engine, Phase phase) {
        long start = System.nanoTime();
        Decision decision = await(engine.beforeAsync(post("lock-" + UUID.randomUUID())));
        Optional<HttpReply> reply;
        if (decision instanceof Decision.Proceed proceed) {
            reply = await(proceed.execution().finishAsync(CapturedResponse.of(201,
                    Map.of("Content-Type", List.of("application/json")),
                    "{\"order\":1}".getBytes(StandardCharsets.UTF_8))));
        } else {
            reply = Optional.of(((Decision.Respond) decision).reply());
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        return reply.map(r -> new Answer(r.status(), detail(r), r.header("Retry-After") != null, millis, phase))
                .orElseGet(() -> new Answer(201, "", false, millis, phase));
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(key), "Content-Type",
                List.of("application/json")), "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
    }

    private static String detail(HttpReply reply) {
        String body = new String(reply.body(), StandardCharsets.UTF_8);
        int at = body.indexOf("\"detail\":\"");
        return at < 0 ? body : body.substring(at + 10, body.indexOf('"', at + 10));
    }
}
