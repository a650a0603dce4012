package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reservation whose acknowledgement was lost: the store applied it and then the call failed
 * (an injected fault, as a Redis failover or a cut database connection does it). The client got
 * 503 and no handler ran, so the key must not be held for the lease — yet nobody else's record
 * may ever be removed in its name.
 */
class LostReservationTest {

    private static final String BODY = "{\"item\":\"book\"}";
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final InMemoryStore memory = new InMemoryStore();
    private final LosingAcknowledgements store = new LosingAcknowledgements(memory);
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final List<IdempotencyEngine> engines = new ArrayList<>();

    @AfterEach
    void close() {
        engines.forEach(IdempotencyEngine::close);
        workers.shutdownNow();
    }

    /** Applies the reservation, then — while armed, once — fails as if its answer had been lost. */
    private static final class LosingAcknowledgements extends TestStores.Forwarding {
        final AtomicBoolean loseNext = new AtomicBoolean();
        final List<Boolean> releases = new CopyOnWriteArrayList<>();

        LosingAcknowledgements(Store delegate) {
            super(delegate);
        }

        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            ReserveResult applied = super.reserve(key, fingerprint, ownerToken, now, lease, ttl);
            if (loseNext.compareAndSet(true, false)) {
                throw new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE,
                        "connection reset while reading the reservation's reply", null);
            }
            return applied;
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            boolean released = super.releaseIfOwned(key, ownerToken);
            releases.add(released);
            return released;
        }
    }

    private IdempotencyEngine engine(boolean blocking) {
        IdempotencyConfig config = IdempotencyConfig.builder().lease(LEASE).renewLease(false).build();
        IdempotencyEngine engine = blocking ? new IdempotencyEngine(store, config)
                : new IdempotencyEngine(AsyncStore.of(store, workers), config);
        engines.add(engine);
        return engine;
    }

    private static Decision decide(IdempotencyEngine engine, String key) {
        return engine.beforeAsync(post(key)).toCompletableFuture().join();
    }

    @Test
    void theRetryOfAReservationWhoseAnswerWasLostRunsAtOnce() {
        for (boolean blocking : List.of(true, false)) {
            IdempotencyEngine engine = engine(blocking);
            String key = "lost-" + blocking;
            AtomicInteger runs = new AtomicInteger();

            store.loseNext.set(true);
            Decision first = decide(engine, key);
            assertThat(status(first)).as("the reservation's outcome is unknown: 503").isEqualTo(503);
            assertThat(state(key)).as("yet it landed").isEqualTo(RecordState.IN_FLIGHT);

            Decision retry = decide(engine, key);
            assertThat(retry).as("the retry right after, not 409 for the whole lease")
                    .isInstanceOf(Decision.Proceed.class);
            runs.incrementAndGet();
            ((Decision.Proceed) retry).execution().finish(created());

            assertThat(runs).hasValue(1);
            assertThat(store.releases).as("the engine released its own reservation").contains(true);
            Decision replay = decide(engine, key);
            assertThat(replay).isInstanceOf(Decision.Respond.class);
            assertThat(((Decision.Respond) replay).isReplay()).isTrue();
        }
    }

    @Test
    void aRetryOnAnotherInstanceFindsTheKeyFreedInTheBackground() {
        for (boolean blocking : List.of(true, false)) {
            IdempotencyEngine first = engine(blocking);
            IdempotencyEngine other = engine(blocking);
            String key = "elsewhere-" + blocking;

            store.loseNext.set(true);
            assertThat(status(decide(first, key))).isEqualTo(503);

            long started = System.nanoTime();
            waitUntil(() -> state(key) == null);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("far within the lease")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(decide(other, key)).isInstanceOf(Decision.Proceed.class);
        }
    }

    @Test
    void anotherOwnersRecordIsNeverReleased() {
        for (boolean blocking : List.of(true, false)) {
            IdempotencyEngine engine = engine(blocking);
            IdempotencyEngine other = engine(blocking);
            String key = "taken-" + blocking;
            Execution running = ((Decision.Proceed) decide(other, key)).execution();

            // This call found the other request's record in the way; its answer was lost all the same.
            store.loseNext.set(true);
            assertThat(status(decide(engine, key))).isEqualTo(503);
            assertThat(status(decide(engine, key))).as("the retry: the other one still runs").isEqualTo(409);
            waitUntil(() -> !store.releases.isEmpty()); // before the retry, or in the background

            assertThat(store.releases).as("every release by token found nothing of its own").containsOnly(false);
            assertThat(state(key)).isEqualTo(RecordState.IN_FLIGHT);
            assertThat(running.finish(created())).as("the owner stores its response").isEmpty();
            assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
            store.releases.clear();
        }
    }

    @Test
    void whileTheStorageIsStillDownTheRetryIsAnswered503AndTheKeyFreedOnceItReturns() {
        OutageStore outage = new OutageStore();
        store.loseNext.set(true);
        IdempotencyEngine engine = new IdempotencyEngine(new TestStores.Forwarding(store) {
            @Override
            public boolean releaseIfOwned(RecordKey key, String ownerToken) {
                outage.check();
                return super.releaseIfOwned(key, ownerToken);
            }

            @Override
            public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now,
                                         Duration lease, Duration ttl) {
                outage.check();
                return super.reserve(key, fingerprint, ownerToken, now, lease, ttl);
            }
        }, IdempotencyConfig.builder().lease(LEASE).renewLease(false).build());
        engines.add(engine);

        assertThat(status(decide(engine, "down"))).isEqualTo(503);
        outage.down.set(true);
        assertThat(status(decide(engine, "down"))).as("still down").isEqualTo(503);
        outage.down.set(false);

        assertThat(decide(engine, "down")).as("the storage is back").isInstanceOf(Decision.Proceed.class);
    }

    /** An outage switched on and off by the test. */
    private static final class OutageStore {
        final AtomicBoolean down = new AtomicBoolean();

        void check() {
            if (down.get()) {
                throw new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE, "down", null);
            }
        }
    }

    private static void waitUntil(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 10 s").isLessThan(deadline);
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static int status(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        return ((Decision.Respond) decision).reply().status();
    }

    private RecordState state(String key) {
        return memory.find(recordKey(key), Instant.now()).map(record -> record.state()).orElse(null);
    }

    private static RecordKey recordKey(String key) {
        return new RecordKey("default", "POST", "/orders", key);
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), BODY.getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created() {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                "{\"id\":1}".getBytes(StandardCharsets.UTF_8));
    }
}
