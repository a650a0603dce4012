package dev.idempotency.r2dbc;

import static dev.idempotency.r2dbc.R2dbcTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The atomic mode: the reservation, the handler's own write (through the reservation's
 * connection) and the stored response share one R2DBC transaction. Subclassed per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractR2dbcAtomicModeTest {

    private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final String FP = "a".repeat(64);
    private static final String OTHER_FP = "b".repeat(64);
    private static final StoredResponse CREATED = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/1")), "{\"order\":1}".getBytes(StandardCharsets.UTF_8));

    private R2dbcTestDatabase db;
    private ConnectionPool pool;
    private R2dbcStore store;
    private R2dbcStore other;
    private ConnectionPool reader;

    @BeforeAll
    void open() {
        db = openDatabase();
        pool = db.pool("atomic-a", 12);
        store = R2dbcStore.create(pool);
        other = R2dbcStore.create(db.pool("atomic-b", 12));
        reader = db.pool("reader", 2);
        await(store.createTableIfMissing());
        db.execute("CREATE TABLE orders (idempotency_key VARCHAR(64) NOT NULL)");
    }

    abstract R2dbcTestDatabase openDatabase();

    /** The database's placeholder for the first parameter. */
    abstract String placeholder();

    @AfterAll
    void close() {
        db.close();
    }

    private static RecordKey newKey() {
        return new RecordKey("t", "POST", "/orders", UUID.randomUUID().toString());
    }

    private AsyncReservation acquire(RecordKey key, String fingerprint) {
        AsyncReserveResult result = await(store.atomic().orElseThrow().reserve(key, fingerprint, NOW, LEASE, TTL, Duration.ZERO));
        assertThat(result).isInstanceOf(AsyncReserveResult.Acquired.class);
        return ((AsyncReserveResult.Acquired) result).reservation();
    }

    private void writeOrder(AsyncReservation reservation) {
        writeOrder(reservation.unwrap(Connection.class).orElseThrow(), reservation.key().key());
    }

    private void writeOrder(Connection c, String key) {
        await(Flux.from(c.createStatement("INSERT INTO orders VALUES (" + placeholder() + ")").bind(0, key).execute())
                .concatMap(result -> result.getRowsUpdated()).then().toFuture());
    }

    private long orders(String key) {
        return await(Mono.usingWhen(Mono.from(reader.create()),
                c -> Flux.from(c.createStatement("SELECT count(*) FROM orders WHERE idempotency_key = " + placeholder())
                        .bind(0, key).execute()).concatMap(r -> r.map((row, m) -> row.get(0, Long.class))).next(),
                Connection::close).toFuture());
    }

    private IdempotencyRecord existing(CompletionStage<AsyncReserveResult> stage) {
        AsyncReserveResult result = await(stage);
        assertThat(result).isInstanceOf(AsyncReserveResult.Existing.class);
        return ((AsyncReserveResult.Existing) result).record();
    }

    @Test
    void completeCommitsTheHandlersWriteAndTheRecordTogether() {
        RecordKey key = newKey();
        AsyncReservation reservation = acquire(key, FP);
        writeOrder(reservation);
        assertThat(orders(key.key())).as("uncommitted: invisible to other connections").isZero();
        assertThat(await(other.find(key, NOW))).isEmpty();

        assertThat(await(reservation.complete(CREATED))).isTrue();

        assertThat(orders(key.key())).isEqualTo(1);
        IdempotencyRecord stored = await(other.find(key, NOW)).orElseThrow();
        assertThat(stored.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(stored.response()).isEqualTo(CREATED);
    }

    @Test
    void anExpiredRecordIsTakenOverAndItsSuccessorStored() {
        RecordKey key = newKey();
        assertThat(await(acquire(key, FP).complete(CREATED))).isTrue();
        StoredResponse later = new StoredResponse(201, "application/json", Map.of(),
                "{\"order\":2}".getBytes(StandardCharsets.UTF_8));

        AsyncReserveResult result =
                await(store.atomic().orElseThrow().reserve(key, OTHER_FP, NOW.plus(TTL), LEASE, TTL, Duration.ZERO));
        assertThat(result).as("the record expired at NOW + TTL").isInstanceOf(AsyncReserveResult.Acquired.class);
        assertThat(await(((AsyncReserveResult.Acquired) result).reservation().complete(later))).isTrue();

        IdempotencyRecord stored = await(other.find(key, NOW.plus(TTL))).orElseThrow();
        assertThat(stored.fingerprint()).isEqualTo(OTHER_FP);
        assertThat(stored.response()).isEqualTo(later);
        assertThat(stored.expiresAt()).isEqualTo(NOW.plus(TTL).plus(TTL));
    }

    @Test
    void abortRollsBackTheHandlersWriteAndTheReservation() {
        RecordKey key = newKey();
        AsyncReservation reservation = acquire(key, FP);
        writeOrder(reservation);

        await(reservation.abort());

        assertThat(orders(key.key())).isZero();
        assertThat(await(other.find(key, NOW))).isEmpty();
        await(acquire(key, FP).abort());
    }

    @Test
    void releaseKeepsTheHandlersWriteButNotTheReservation() {
        RecordKey key = newKey();
        AsyncReservation reservation = acquire(key, FP);
        writeOrder(reservation);

        assertThat(await(reservation.release())).isTrue();

        assertThat(orders(key.key())).isEqualTo(1);
        assertThat(await(other.find(key, NOW))).isEmpty();
    }

    @Test
    void theConnectionAndItsFactoryAreWhatTheEngineUnwraps() {
        AsyncReservation reservation = acquire(newKey(), FP);
        assertThat(reservation.unwrap(Connection.class)).isPresent();
        assertThat(reservation.unwrap(ConnectionFactory.class)).containsSame(pool);
        assertThat(reservation.unwrap(String.class)).isEmpty();
        await(reservation.abort());
    }

    @Test
    void everyFinishGivesTheConnectionBack() {
        int before = pool.getMetrics().orElseThrow().acquiredSize();
        List<AsyncReservation> reservations = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            reservations.add(acquire(newKey(), FP));
        }
        assertThat(pool.getMetrics().orElseThrow().acquiredSize()).isEqualTo(before + 4);
        await(reservations.get(0).complete(CREATED));
        await(reservations.get(1).release());
        await(reservations.get(2).abort());
        await(reservations.get(3).abort());
        assertThat(pool.getMetrics().orElseThrow().acquiredSize()).isEqualTo(before);
    }

    @Test
    void aDuplicateOfAnUncommittedReservationLearnsWhetherItsBodyIsTheSame() {
        RecordKey key = newKey();
        AsyncReservation reservation = acquire(key, FP);

        IdempotencyRecord same = existing(other.atomic().orElseThrow().reserve(key, FP, NOW, LEASE, TTL, Duration.ZERO));
        IdempotencyRecord different = existing(other.atomic().orElseThrow().reserve(key, OTHER_FP, NOW, LEASE, TTL, Duration.ZERO));

        assertThat(same.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(same.fingerprint()).isEqualTo(FP);
        assertThat(different.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(different.fingerprint()).isEqualTo(AtomicAttempt.ANOTHER_BODY);
        await(reservation.abort());
    }

    @Test
    void aWaitingDuplicateSeesTheCompletedRecordOnceTheFirstCommits() throws Exception {
        RecordKey key = newKey();
        AsyncReservation reservation = acquire(key, FP);
        CompletionStage<AsyncReserveResult> waiting = other.atomic().orElseThrow().reserve(key, FP, NOW, LEASE, TTL,
                Duration.ofSeconds(10));
        Thread.sleep(300);
        assertThat(waiting.toCompletableFuture()).isNotDone();

        assertThat(await(reservation.complete(CREATED))).isTrue();

        IdempotencyRecord seen = existing(waiting);
        assertThat(seen.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(seen.response()).isEqualTo(CREATED);
    }

    @Test
    void aHandleFinishesOnce() {
        AsyncReservation reservation = acquire(newKey(), FP);
        assertThat(await(reservation.complete(CREATED))).isTrue();
        assertThat(catchFailure(reservation.abort())).isInstanceOf(IllegalStateException.class);
        assertThat(await(reservation.renew(NOW, LEASE))).isFalse();
    }

    @Test
    void throughTheEngineAFailingHandlerLeavesNeitherItsWriteNorTheRecord() {
        try (IdempotencyEngine engine = new IdempotencyEngine(store, atomic())) {
            String key = UUID.randomUUID().toString();
            Execution failing = proceed(await(engine.beforeAsync(post(key))));
            writeOrder(failing.unwrap(Connection.class).orElseThrow(), key);
            await(failing.failAsync(new IllegalStateException("handler failed")));

            assertThat(orders(key)).isZero();
            assertThat(await(other.find(failing.key(), Instant.now()))).isEmpty();

            Execution retry = proceed(await(engine.beforeAsync(post(key))));
            writeOrder(retry.unwrap(Connection.class).orElseThrow(), key);
            await(retry.finishAsync(CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                    "{\"order\":1}".getBytes(StandardCharsets.UTF_8))));

            assertThat(orders(key)).isEqualTo(1);
            assertThat(await(engine.beforeAsync(post(key)))).isInstanceOf(Decision.Respond.class);
        }
    }

    /** Two instances (two pools), 16 requests with one key at once: the handler runs once, its write commits once. */
    @Test
    void concurrentDuplicatesOnTwoInstancesRunTheHandlerOnce() {
        int requests = 16;
        String key = UUID.randomUUID().toString();
        AtomicInteger executions = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(requests);
        try (IdempotencyEngine first = new IdempotencyEngine(store, atomic());
             IdempotencyEngine second = new IdempotencyEngine(other, atomic())) {
            List<CompletableFuture<Integer>> statuses = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                IdempotencyEngine engine = i % 2 == 0 ? first : second;
                statuses.add(CompletableFuture.supplyAsync(() -> {
                    awaitStart(start);
                    Decision decision = await(engine.beforeAsync(post(key)));
                    if (decision instanceof Decision.Respond respond) {
                        return respond.reply().status();
                    }
                    Execution execution = proceed(decision);
                    executions.incrementAndGet();
                    writeOrder(execution.unwrap(Connection.class).orElseThrow(), key);
                    await(execution.finishAsync(CapturedResponse.of(201, Map.of(), new byte[0])));
                    return 201;
                }, threads));
            }
            start.countDown();
            List<Integer> answered = statuses.stream().map(CompletableFuture::join).toList();
            assertThat(executions).hasValue(1);
            assertThat(orders(key)).isEqualTo(1);
            assertThat(answered).containsOnly(201);
        } finally {
            threads.shutdownNow();
        }
    }

    private static void awaitStart(CountDownLatch start) {
        try {
            start.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static IdempotencyConfig atomic() {
        return IdempotencyConfig.builder().mode(Mode.ATOMIC).inFlightWait(Duration.ofSeconds(10)).build();
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(key), "Content-Type",
                List.of("application/json")), "{\"item\":7}".getBytes(StandardCharsets.UTF_8));
    }

    private static Execution proceed(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        return ((Decision.Proceed) decision).execution();
    }

    private static Throwable catchFailure(CompletionStage<?> stage) {
        try {
            await(stage);
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("expected the stage to fail");
    }
}
