package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import io.vertx.core.Future;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the engine answers 503 for, and that the store serves again once the cause is gone, without a restart. */
class PgOutageTest {

    private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");
    private static final String FP = "a".repeat(64);

    private PgTestDatabase db;
    private PgStore store;

    @BeforeEach
    void open() {
        db = new PgTestDatabase();
        store = PgStore.create(db.pool("outage", 4));
        await(store.createTableIfMissing());
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static RecordKey newKey() {
        return new RecordKey("t", "POST", "/orders", UUID.randomUUID().toString());
    }

    private static StorageUnavailableException unavailable(CompletionStage<?> stage) {
        Throwable thrown = catchFailure(stage);
        assertThat(thrown).isInstanceOf(StorageUnavailableException.class);
        return (StorageUnavailableException) thrown;
    }

    private static Throwable catchFailure(CompletionStage<?> stage) {
        try {
            await(stage);
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("expected the stage to fail");
    }

    @Test
    void aDroppedTableIsNotProvisionedAndTheStoreServesAgainOnceItIsBack() {
        db.execute("DROP TABLE idempotency_keys");

        assertThat(unavailable(store.find(newKey(), NOW)).reason()).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(unavailable(store.reserve(newKey(), FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1))).reason())
                .isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(unavailable(store.atomic().orElseThrow().reserve(newKey(), FP, NOW, Duration.ofSeconds(30),
                Duration.ofHours(1), Duration.ZERO)).reason()).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(unavailable(store.check()).reason()).isEqualTo(Reason.NOT_PROVISIONED);

        await(store.createTableIfMissing());

        RecordKey key = newKey();
        assertThat(await(store.reserve(key, FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1))))
                .isInstanceOf(AsyncReserveResult.Acquired.class);
        assertThat(await(store.find(key, NOW))).isPresent();
    }

    @Test
    void terminatedBackendsAreReplacedAndTheNextCallsSucceed() {
        // Open all four connections of the pool.
        List<Future<?>> warm = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            warm.add(Future.fromCompletionStage(store.find(newKey(), NOW)));
        }
        await(Future.all(warm));
        assertThat(db.terminateBackends()).isPositive();

        // A call may still meet a dead connection before the pool notices; it fails as unreachable, nothing else.
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            try {
                return await(store.find(newKey(), NOW)).isEmpty();
            } catch (StorageUnavailableException e) {
                assertThat(e.reason()).isEqualTo(Reason.UNREACHABLE);
                return false;
            }
        });
        for (int i = 0; i < 10; i++) {
            RecordKey key = newKey();
            assertThat(await(store.reserve(key, FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1))))
                    .isInstanceOf(AsyncReserveResult.Acquired.class);
        }
    }

    @Test
    void aPoolOnAClosedPortIsUnreachable() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PgConnectOptions options = new PgConnectOptions(PgTestDatabase.server()).setHost("127.0.0.1").setPort(port);
        PgStore nowhere = PgStore.create(db.pool("closed-port", 2, options));

        assertThat(unavailable(nowhere.find(newKey(), NOW)).reason()).isEqualTo(Reason.UNREACHABLE);
        assertThat(unavailable(nowhere.atomic().orElseThrow().reserve(newKey(), FP, NOW, Duration.ofSeconds(30),
                Duration.ofHours(1), Duration.ZERO)).reason()).isEqualTo(Reason.UNREACHABLE);
    }

    @Test
    void aPoolWithNoFreeConnectionIsBusy() {
        Pool single = db.pool("single", 1);
        SqlConnection held = await(single.getConnection());
        try {
            assertThat(unavailable(PgStore.create(single).find(newKey(), NOW)).reason()).isEqualTo(Reason.BUSY);
            // Through Pool.getConnection() (the bounded statements, the atomic mode): Vert.x fails otherwise.
            StorageUnavailableException bounded = unavailable(PgStore.builder(single)
                    .statementTimeout(Duration.ofSeconds(1)).build().find(newKey(), NOW));
            assertThat(bounded.reason()).isEqualTo(Reason.BUSY);
            assertThat(bounded.getCause()).isInstanceOf(io.vertx.core.VertxException.class).hasMessage("Timeout");
            assertThat(unavailable(PgStore.create(single).atomic().orElseThrow().reserve(newKey(), FP, NOW,
                    Duration.ofSeconds(30), Duration.ofHours(1), Duration.ZERO)).reason()).isEqualTo(Reason.BUSY);
        } finally {
            await(held.close());
        }
        assertThat(await(PgStore.create(single).find(newKey(), NOW))).isEqualTo(Optional.empty());
    }

    @Test
    void theStoresStatementTimeoutEndsAWaitForATableLockAsBusy() {
        Pool locker = db.pool("locker", 1);
        SqlConnection lock = await(locker.getConnection());
        await(lock.query("BEGIN; LOCK TABLE idempotency_keys IN ACCESS EXCLUSIVE MODE").execute());
        try {
            PgStore bounded = PgStore.builder(db.pool("bounded", 2)).statementTimeout(Duration.ofMillis(300)).build();
            List<CompletionStage<?>> calls = List.of(
                    bounded.find(newKey(), NOW),
                    bounded.reserve(newKey(), FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1)),
                    bounded.insertCompleted(newKey(), FP, new dev.idempotency.core.store.StoredResponse(201,
                            "text/plain", java.util.Map.of(), new byte[0]), NOW, Duration.ofHours(1)),
                    bounded.purgeExpired(NOW, 10),
                    // The caller's wait (10 s) is longer: the statement timeout ends it first.
                    bounded.atomic().orElseThrow().reserve(newKey(), FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1),
                            Duration.ofSeconds(10)));
            for (CompletionStage<?> call : calls) {
                long start = System.nanoTime();
                StorageUnavailableException busy = unavailable(call);
                assertThat(busy.reason()).isEqualTo(Reason.BUSY);
                assertThat(PgFailures.sqlState(busy.getCause())).isEqualTo("57014");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("well before the caller's wait")
                        .isLessThan(Duration.ofSeconds(8));
            }
        } finally {
            await(lock.query("ROLLBACK").execute());
            await(lock.close());
        }
    }

    @Test
    void aStatementTimeoutOfZeroLeavesTheSessionsOwn() {
        PgConnectOptions timed = new PgConnectOptions(PgTestDatabase.server()).addProperty("statement_timeout", "100ms");
        PgStore unbounded = PgStore.builder(db.pool("session-timeout", 1, timed)).statementTimeout(Duration.ZERO).build();
        Pool locker = db.pool("locker", 1);
        SqlConnection lock = await(locker.getConnection());
        await(lock.query("BEGIN; LOCK TABLE idempotency_keys IN ACCESS EXCLUSIVE MODE").execute());
        try {
            StorageUnavailableException busy = unavailable(unbounded.find(newKey(), NOW));
            assertThat(busy.reason()).isEqualTo(Reason.BUSY);
            assertThat(busy.getCause()).hasMessageContaining("statement timeout");
            // The store's 5 s does not lengthen the session's shorter limit: it is cancelled as soon.
            PgStore byDefault = PgStore.create(db.pool("session-timeout-default", 1, timed));
            long start = System.nanoTime();
            assertThat(unavailable(byDefault.reserve(newKey(), FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1)))
                    .reason()).isEqualTo(Reason.BUSY);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        } finally {
            await(lock.query("ROLLBACK").execute());
            await(lock.close());
        }
    }

    @Test
    void aNegativeStatementTimeoutIsRefused() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() ->
                PgStore.builder(db.pool("refused", 1)).statementTimeout(Duration.ofMillis(-1)));
        assertThat(PgStore.DEFAULT_STATEMENT_TIMEOUT).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aLockOrStatementTimeoutIsBusy() {
        Pool locker = db.pool("locker", 1);
        SqlConnection lock = await(locker.getConnection());
        await(lock.query("BEGIN; LOCK TABLE idempotency_keys IN ACCESS EXCLUSIVE MODE").execute());
        try {
            PgConnectOptions options = new PgConnectOptions(PgTestDatabase.server()).addProperty("lock_timeout", "100ms");
            Pool impatient = db.pool("impatient", 1, options);
            assertThat(unavailable(PgStore.create(impatient).find(newKey(), NOW)).reason()).isEqualTo(Reason.BUSY);
            PgConnectOptions timed = new PgConnectOptions(PgTestDatabase.server()).addProperty("statement_timeout", "100ms");
            StorageUnavailableException canceled = unavailable(PgStore.create(db.pool("timed", 1, timed))
                    .find(newKey(), NOW));
            assertThat(canceled.reason()).isEqualTo(Reason.BUSY);
            assertThat(PgFailures.sqlState(canceled.getCause())).isEqualTo("57014");
        } finally {
            await(lock.query("ROLLBACK").execute());
            await(lock.close());
        }
    }
}
