package dev.idempotency.micrometer;

import static dev.idempotency.micrometer.Requests.created;
import static dev.idempotency.micrometer.Requests.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.OutageStore;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The store meters over both faces of a store: timers by operation and result, executions in flight. */
class StoreMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final IdempotencyMetrics metrics = IdempotencyMetrics.builder(registry).build();
    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private IdempotencyConfig config(Mode mode) {
        return IdempotencyConfig.builder().mode(mode).addListener(metrics.listener()).build();
    }

    private long calls(String operation, String result) {
        Timer timer = registry.find("idempotency.store").tags("operation", operation, "result", result).timer();
        return timer == null ? 0 : timer.count();
    }

    private double active() {
        return registry.get("idempotency.executions.active").gauge().value();
    }

    @Test
    void anExecutionIsInFlightFromItsReservationUntilItIsStored() {
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), config(Mode.RESERVE))) {
            engine.before(Requests.get("/orders"));
            assertThat(registry.find("idempotency.executions.active").gauge())
                    .as("no gauge before a reservation is won").isNull();
            Execution first = ((Decision.Proceed) engine.before(post("k1", "{}"))).execution();
            Execution second = ((Decision.Proceed) engine.before(post("k2", "{}"))).execution();
            assertThat(active()).isEqualTo(2);
            first.finish(created());
            assertThat(active()).isEqualTo(1);
            second.fail(new IllegalStateException("handler failed"));
            assertThat(active()).isZero();
            first.finish(created()); // a repeated finish is a no-op, and counts nothing twice
            engine.before(post("k1", "{}"));
            assertThat(active()).isZero();
        }
        assertThat(calls("reserve", "success")).isEqualTo(3);
        assertThat(calls("complete", "success")).isEqualTo(1);
        assertThat(calls("abort", "success")).isEqualTo(1);
    }

    @Test
    void theAsynchronousFaceCountsAndTimesTheSame() {
        AsyncStore store = AsyncStore.of(new InMemoryStore(), executor);
        try (IdempotencyEngine engine = new IdempotencyEngine(store, config(Mode.RESERVE))) {
            Execution execution = ((Decision.Proceed) engine.beforeAsync(post("k1", "{}")).toCompletableFuture()
                    .join()).execution();
            assertThat(active()).isEqualTo(1);
            execution.finishAsync(created()).toCompletableFuture().join();
            assertThat(active()).isZero();
            engine.beforeAsync(post("k1", "{}")).toCompletableFuture().join();
            Execution released = ((Decision.Proceed) engine.beforeAsync(post("k2", "{}")).toCompletableFuture()
                    .join()).execution();
            released.finishAsync(Requests.serverError()).toCompletableFuture().join();
            engine.checkStorageAsync().toCompletableFuture().join();
        }
        assertThat(active()).isZero();
        assertThat(calls("reserve", "success")).isEqualTo(3);
        assertThat(calls("complete", "success")).isEqualTo(1);
        assertThat(calls("release", "success")).isEqualTo(1);
        assertThat(calls("check", "success")).isEqualTo(1);
    }

    @Test
    void anOutageIsTimedAsUnavailableOnBothFaces() {
        OutageStore outage = new OutageStore(new InMemoryStore());
        outage.outage(StorageUnavailableException.Reason.UNREACHABLE);
        try (IdempotencyEngine blocking = new IdempotencyEngine(outage, config(Mode.RESERVE));
             IdempotencyEngine async = new IdempotencyEngine(AsyncStore.of(outage, executor),
                     config(Mode.OPTIMISTIC))) {
            assertThat(blocking.before(post("k1", "{}"))).isInstanceOf(Decision.Respond.class);
            assertThat(async.beforeAsync(post("k1", "{}")).toCompletableFuture().join())
                    .isInstanceOf(Decision.Respond.class);
            assertThatThrownBy(blocking::checkStorage).isInstanceOf(StorageUnavailableException.class);
        }
        assertThat(calls("reserve", "unavailable")).isEqualTo(1);
        assertThat(calls("find", "unavailable")).isEqualTo(1);
        assertThat(calls("check", "unavailable")).isEqualTo(1);
        assertThat(registry.find("idempotency.executions.active").gauge()).isNull();
    }

    @Test
    void anyOtherFailureIsTimedAsAnError() {
        try (IdempotencyEngine blocking = new IdempotencyEngine(new FailingFind(), config(Mode.OPTIMISTIC));
             IdempotencyEngine async = new IdempotencyEngine(AsyncStore.of(new FailingFind(), executor),
                     config(Mode.OPTIMISTIC))) {
            assertThat(blocking.before(post("k1", "{}"))).isInstanceOf(Decision.Respond.class);
            assertThat(async.beforeAsync(post("k1", "{}")).toCompletableFuture().join())
                    .isInstanceOf(Decision.Respond.class);
        }
        assertThat(calls("find", "error")).isEqualTo(2);
        assertThat(calls("find", "success")).isZero();
    }

    /** A store whose look-up fails with something other than an outage. */
    private static class FailingFind implements Store {
        private final Store delegate = new InMemoryStore();

        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            return delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
        }

        @Override
        public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
            return delegate.complete(key, ownerToken, response);
        }

        @Override
        public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            return delegate.renew(key, ownerToken, now, lease);
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            return delegate.releaseIfOwned(key, ownerToken);
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
            throw new IllegalStateException("disk full");
        }

        @Override
        public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                       Duration ttl) {
            return delegate.insertCompleted(key, fingerprint, response, now, ttl);
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            return delegate.purgeExpired(now, limit);
        }
    }

    @Test
    void theAtomicModeIsMeteredAndItsTransactionStillReachesTheHandler() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:metrics-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        JdbcStore jdbc = JdbcStore.create(dataSource);
        jdbc.createTableIfMissing();
        try (IdempotencyEngine engine = new IdempotencyEngine(jdbc, config(Mode.ATOMIC))) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1", "{}"))).execution();
            assertThat(execution.unwrap(Connection.class)).isPresent();
            assertThat(active()).isEqualTo(1);
            execution.finish(created());
            assertThat(engine.before(post("k1", "{}"))).isInstanceOf(Decision.Respond.class);
        }
        assertThat(active()).isZero();
        assertThat(calls("reserveInTransaction", "success")).isEqualTo(2);
        assertThat(calls("complete", "success")).isEqualTo(1);
    }
}
