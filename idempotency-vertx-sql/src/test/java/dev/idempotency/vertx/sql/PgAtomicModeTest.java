package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
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
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The atomic mode: the reservation, the handler's own write (through the reservation's
 * connection) and the stored response share one transaction.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgAtomicModeTest {

    private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final String FP = "a".repeat(64);
    private static final String OTHER_FP = "b".repeat(64);
    private static final StoredResponse CREATED = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/1")), "{\"order\":1}".getBytes(StandardCharsets.UTF_8));

    private PgTestDatabase db;
    private PgStore store;
    private PgStore other;

    @BeforeAll
    void open() {
        db = new PgTestDatabase();
        store = PgStore.create(db.pool("atomic-a", 4));
        other = PgStore.create(db.pool("atomic-b", 4));
        await(store.createTableIfMissing());
        db.execute("CREATE TABLE orders (idempotency_key TEXT PRIMARY KEY)");
    }

    @AfterAll
    void close() {
        db.close();
    }

    private static RecordKey newKey() {
        return new RecordKey("t", "POST", "/orders", UUID.randomUUID().toString());
    }

    private PgAtomicReservation acquire(RecordKey key, String fingerprint) {
        AsyncReserveResult result = await(store.atomic().orElseThrow().reserve(key, fingerprint, NOW, LEASE, TTL, Duration.ZERO));
        assertThat(result).isInstanceOf(AsyncReserveResult.Acquired.class);
        AsyncReservation reservation = ((AsyncReserveResult.Acquired) result).reservation();
        assertThat(reservation).isInstanceOf(PgAtomicReservation.class);
        return (PgAtomicReservation) reservation;
    }

    private static void writeOrder(SqlConnection connection, RecordKey key) {
        await(connection.preparedQuery("INSERT INTO orders VALUES ($1)").execute(Tuple.of(key.key())));
    }

    private long orders(RecordKey key) {
        return db.execute("SELECT 1 FROM orders WHERE idempotency_key = '" + key.key() + "'").rowCount();
    }

    private IdempotencyRecord existing(CompletionStage<AsyncReserveResult> stage) {
        AsyncReserveResult result = await(stage);
        assertThat(result).isInstanceOf(AsyncReserveResult.Existing.class);
        return ((AsyncReserveResult.Existing) result).record();
    }

    @Test
    void completeCommitsTheHandlersWriteAndTheRecordTogether() {
        RecordKey key = newKey();
        PgAtomicReservation reservation = acquire(key, FP);
        writeOrder(reservation.connection(), key);
        assertThat(orders(key)).as("uncommitted: invisible to other connections").isZero();
        assertThat(await(other.find(key, NOW))).isEmpty();

        assertThat(await(reservation.complete(CREATED))).isTrue();

        assertThat(orders(key)).isEqualTo(1);
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
        PgAtomicReservation reservation = acquire(key, FP);
        writeOrder(reservation.connection(), key);

        await(reservation.abort());

        assertThat(orders(key)).isZero();
        assertThat(await(other.find(key, NOW))).isEmpty();
        await(acquire(key, FP).abort());
    }

    @Test
    void releaseKeepsTheHandlersWriteButNotTheReservation() {
        RecordKey key = newKey();
        PgAtomicReservation reservation = acquire(key, FP);
        writeOrder(reservation.connection(), key);

        assertThat(await(reservation.release())).isTrue();

        assertThat(orders(key)).isEqualTo(1);
        assertThat(await(other.find(key, NOW))).isEmpty();
    }

    @Test
    void theConnectionIsWhatTheEngineUnwraps() {
        PgAtomicReservation reservation = acquire(newKey(), FP);
        assertThat(reservation.unwrap(SqlConnection.class)).containsSame(reservation.connection());
        assertThat(reservation.unwrap(PgAtomicReservation.class)).containsSame(reservation);
        assertThat(reservation.unwrap(Pool.class)).isEmpty();
        await(reservation.abort());
    }

    @Test
    void aDuplicateOfAnUncommittedReservationLearnsWhetherItsBodyIsTheSame() {
        RecordKey key = newKey();
        PgAtomicReservation reservation = acquire(key, FP);

        IdempotencyRecord same = existing(other.atomic().orElseThrow().reserve(key, FP, NOW, LEASE, TTL, Duration.ZERO));
        IdempotencyRecord different = existing(other.atomic().orElseThrow().reserve(key, OTHER_FP, NOW, LEASE, TTL, Duration.ZERO));

        assertThat(same.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(same.fingerprint()).isEqualTo(FP);
        assertThat(different.state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(different.fingerprint()).isEqualTo(dev.idempotency.core.store.AtomicAttempt.ANOTHER_BODY);
        await(reservation.abort());
    }

    @Test
    void callersHoldOneKeyAtOnceAndADuplicateLearnsOnlyItsOwnCallersBody() {
        RecordKey anonymous = newKey();
        RecordKey alice = withCaller(anonymous, RecordKey.callerOf("alice"));
        RecordKey bob = withCaller(anonymous, RecordKey.callerOf("bob"));
        PgAtomicReservation alices = acquire(alice, FP);
        PgAtomicReservation bobs = acquire(bob, OTHER_FP); // not kept waiting by Alice's uncommitted row
        PgAtomicReservation anonymouss = acquire(anonymous, OTHER_FP);

        // Bob and the anonymous request hold this key with OTHER_FP, but not under Alice's caller.
        IdempotencyRecord alicesDuplicate = existing(other.atomic().orElseThrow().reserve(alice, OTHER_FP, NOW, LEASE, TTL,
                Duration.ZERO));
        assertThat(alicesDuplicate.key()).isEqualTo(alice);
        assertThat(alicesDuplicate.fingerprint()).isEqualTo(dev.idempotency.core.store.AtomicAttempt.ANOTHER_BODY);
        IdempotencyRecord bobsDuplicate = existing(other.atomic().orElseThrow().reserve(bob, OTHER_FP, NOW, LEASE, TTL,
                Duration.ZERO));
        assertThat(bobsDuplicate.fingerprint()).isEqualTo(OTHER_FP);

        assertThat(await(alices.complete(CREATED))).isTrue();
        await(bobs.abort());
        assertThat(await(anonymouss.release())).isTrue();

        assertThat(await(other.find(alice, NOW)).orElseThrow().response()).isEqualTo(CREATED);
        assertThat(await(other.find(bob, NOW))).isEmpty();
        assertThat(await(other.find(anonymous, NOW))).isEmpty();
    }

    private static RecordKey withCaller(RecordKey key, String caller) {
        return new RecordKey(key.tenant(), caller, key.method(), key.path(), key.key());
    }

    @Test
    void aWaitingDuplicateSeesTheCompletedRecordOnceTheFirstCommits() {
        RecordKey key = newKey();
        PgAtomicReservation reservation = acquire(key, FP);
        CompletionStage<AsyncReserveResult> waiting = other.atomic().orElseThrow().reserve(key, FP, NOW, LEASE, TTL,
                Duration.ofSeconds(10));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> db.waitingForLocks() == 1); // the duplicate waits for the first's row lock
        assertThat(waiting.toCompletableFuture()).isNotDone();

        assertThat(await(reservation.complete(CREATED))).isTrue();

        IdempotencyRecord seen = existing(waiting);
        assertThat(seen.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(seen.response()).isEqualTo(CREATED);
    }

    @Test
    void aHandleFinishesOnce() {
        PgAtomicReservation reservation = acquire(newKey(), FP);
        assertThat(await(reservation.complete(CREATED))).isTrue();
        assertThat(catchFailure(reservation.abort())).isInstanceOf(IllegalStateException.class);
        assertThat(await(reservation.renew(NOW, LEASE))).isFalse();
    }

    @Test
    void throughTheEngineAFailingHandlerLeavesNeitherItsWriteNorTheRecord() {
        IdempotencyConfig config = IdempotencyConfig.builder().mode(Mode.ATOMIC).build();
        try (IdempotencyEngine engine = new IdempotencyEngine(store, config)) {
            String key = UUID.randomUUID().toString();
            Execution failing = proceed(await(engine.beforeAsync(post(key))));
            writeOrder(failing.unwrap(SqlConnection.class).orElseThrow(), failing.key());
            await(failing.failAsync(new IllegalStateException("handler failed")));

            assertThat(orders(failing.key())).isZero();
            assertThat(await(other.find(failing.key(), Instant.now()))).isEmpty();

            Execution retry = proceed(await(engine.beforeAsync(post(key))));
            writeOrder(retry.unwrap(SqlConnection.class).orElseThrow(), retry.key());
            await(retry.finishAsync(CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                    "{\"order\":1}".getBytes(StandardCharsets.UTF_8))));

            assertThat(orders(retry.key())).isEqualTo(1);
            assertThat(await(engine.beforeAsync(post(key)))).isInstanceOf(Decision.Respond.class);
        }
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
