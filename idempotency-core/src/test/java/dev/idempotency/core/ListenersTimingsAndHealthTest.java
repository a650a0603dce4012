package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Several listeners, the timings events carry, the busy reason, lease renewals that cannot starve, and the health check. */
class ListenersTimingsAndHealthTest {

    private static final String BODY = "{\"item\":\"book\"}";

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), BODY.getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created() {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everyListenerHearsEveryEventEvenWhenOneThrows() {
        List<Outcome> first = new CopyOnWriteArrayList<>();
        List<Outcome> third = new CopyOnWriteArrayList<>();
        IdempotencyConfig config = IdempotencyConfig.builder()
                .addListener(event -> first.add(event.outcome()))
                .addListener(event -> {
                    throw new IllegalStateException("metrics down");
                })
                .addListener(event -> third.add(event.outcome()))
                .build();
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), config)) {
            ((Decision.Proceed) engine.before(post("k1"))).execution().finish(created());
            engine.before(post("k1"));
        }
        assertThat(first).containsExactly(Outcome.EXECUTED_STORED, Outcome.REPLAYED);
        assertThat(third).isEqualTo(first);
    }

    @Test
    void listenersHearEveryStoreCallAndEachWonReservationIsFinishedOnce() {
        List<String> calls = new CopyOnWriteArrayList<>();
        IdempotencyListener storeCalls = new IdempotencyListener() {
            @Override
            public void onEvent(IdempotencyEvent event) {
            }

            @Override
            public void onStoreCall(StoreCall call) {
                assertThat(call.duration().isNegative()).isFalse();
                calls.add(call.operation() + " " + call.result() + (call.finishesExecution() ? " finishes" : ""));
            }
        };
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().addListener(storeCalls).build())) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            execution.finish(created());
            execution.finish(created()); // a repeated finish reaches no store
            engine.before(post("k1"));
            engine.checkStorage();
        }
        assertThat(calls).containsExactly("reserve WON", "complete SUCCESS finishes", "reserve SUCCESS",
                "check SUCCESS");
    }

    /** Won reservations less finished ones, as the Micrometer gauge counts them. */
    private static final class InFlight implements IdempotencyListener {
        final AtomicInteger count = new AtomicInteger();
        final List<String> operations = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(IdempotencyEvent event) {
        }

        @Override
        public void onStoreCall(StoreCall call) {
            operations.add(call.operation());
            if (call.result() == StoreCall.Result.WON) {
                count.incrementAndGet();
            } else if (call.finishesExecution()) {
                count.decrementAndGet();
            }
        }
    }

    @Test
    void anAbandonedExecutionIsNoLongerInFlightAndAFinishAfterItCountsNothing() {
        InFlight inFlight = new InFlight();
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().addListener(inFlight).build())) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            assertThat(inFlight.count).hasValue(1);
            execution.abandonAsync().toCompletableFuture().join();
            assertThat(inFlight.count).hasValue(0);
            execution.finish(created());
            assertThat(inFlight.count).hasValue(0);
            assertThat(engine.before(post("k1"))).as("the key stays in flight until its lease lapses")
                    .isInstanceOf(Decision.Respond.class);
        }
        assertThat(inFlight.operations).containsExactly("reserve", "abandon", "reserve");
    }

    @Test
    void aReplayPolicyThatThrowsStoresNothingAndEndsTheExecution() {
        InFlight inFlight = new InFlight();
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        IdempotencyConfig config = IdempotencyConfig.builder().addListener(inFlight)
                .addListener(event -> outcomes.add(event.outcome()))
                .replayPolicy(response -> {
                    throw new IllegalStateException("policy bug");
                })
                .build();
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), config)) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            assertThat(execution.finish(created())).as("the client gets the handler's own response").isEmpty();
            assertThat(inFlight.count).hasValue(0);
            Decision retry = engine.before(post("k1"));
            assertThat(retry).as("not released: the handler's effects stand, the key stays in flight")
                    .isInstanceOf(Decision.Respond.class);
            assertThat(((Decision.Respond) retry).isReplay()).isFalse();
        }
        assertThat(outcomes).startsWith(Outcome.PERSIST_FAILED);
    }

    @Test
    void aListenerThatThrowsAnErrorOnAStoreCallBreaksNoRequest() {
        IdempotencyListener broken = new IdempotencyListener() {
            @Override
            public void onEvent(IdempotencyEvent event) {
                throw new AssertionError("metrics library clash");
            }

            @Override
            public void onStoreCall(StoreCall call) {
                throw new AssertionError("metrics library clash");
            }
        };
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().addListener(broken).build())) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            assertThat(execution.finish(created())).isEmpty();
            assertThat(((Decision.Respond) engine.before(post("k1"))).isReplay()).isTrue();
        }
    }

    @Test
    void eventsCarryTheDecisionAndTheExecutionTime() throws Exception {
        List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().listener(events::add).build())) {
            Execution execution = ((Decision.Proceed) engine.before(post("k1"))).execution();
            Thread.sleep(30); // the handler runs
            execution.finish(created());
            engine.before(post("k1"));
        }
        IdempotencyEvent stored = events.get(0);
        assertThat(stored.outcome()).isEqualTo(Outcome.EXECUTED_STORED);
        assertThat(stored.decisionTime()).isPositive();
        assertThat(stored.executionTime()).as("the handler's run counts as execution")
                .isGreaterThanOrEqualTo(Duration.ofMillis(30));
        IdempotencyEvent replayed = events.get(1);
        assertThat(replayed.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(replayed.decisionTime()).isPositive();
        assertThat(replayed.executionTime()).as("nothing executed").isNull();
    }

    @Test
    void aBusyStorageIsTold503BusyWithRetryAfter() throws Exception {
        Store busy = new Failing(new StorageUnavailableException(StorageUnavailableException.Reason.BUSY,
                "pool timeout", null));
        try (IdempotencyEngine engine = new IdempotencyEngine(busy, IdempotencyConfig.defaults())) {
            HttpReply reply = ((Decision.Respond) engine.before(post("k1"))).reply();
            assertThat(reply.status()).isEqualTo(503);
            assertThat(reply.header("Retry-After")).isEqualTo("1");
            assertThat(new ObjectMapper().readTree(reply.body()).path("detail").asText())
                    .isEqualTo("Idempotency storage is busy");
        }
    }

    @Test
    void aRenewalStuckOnOneKeyDelaysNoOtherKeysRenewal() throws Exception {
        CountDownLatch unblock = new CountDownLatch(1);
        Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();
        InMemoryStore memory = new InMemoryStore();
        Store store = new TestStores.Forwarding(memory) {
            @Override
            public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                         Duration ttl) {
                renewals.computeIfAbsent(key.key(), k -> new AtomicInteger());
                return super.reserve(key, fingerprint, ownerToken, now, lease, ttl);
            }

            @Override
            public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
                renewals.computeIfAbsent(key.key(), k -> new AtomicInteger()).incrementAndGet();
                if (key.key().equals("stuck")) {
                    try {
                        unblock.await(); // a renewal that never comes back
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.renew(key, ownerToken, now, lease);
            }
        };
        IdempotencyConfig config = IdempotencyConfig.builder().lease(Duration.ofMillis(150)).build();
        try (IdempotencyEngine engine = new IdempotencyEngine(store, config)) {
            Execution stuck = ((Decision.Proceed) engine.before(post("stuck"))).execution();
            Execution healthy = ((Decision.Proceed) engine.before(post("healthy"))).execution();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (renewals.get("healthy").get() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(renewals.get("healthy").get()).as("the healthy key's renewals went on").isGreaterThanOrEqualTo(5);
            assertThat(renewals.get("stuck").get()).as("the stuck renewal was not started again").isEqualTo(1);
            unblock.countDown();
            healthy.finish(created());
            stuck.finish(created());
        }
    }

    @Test
    void theHealthCheckSaysWhetherTheStorageIsUsable() {
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults())) {
            engine.checkStorage();
            assertThat(engine.checkStorageAsync().toCompletableFuture().join()).isNull();
        }
        Store missing = new Failing(new StorageUnavailableException(
                StorageUnavailableException.Reason.NOT_PROVISIONED, "no table", null));
        try (IdempotencyEngine engine = new IdempotencyEngine(missing, IdempotencyConfig.defaults())) {
            assertThatThrownBy(engine::checkStorage).isInstanceOf(StorageUnavailableException.class)
                    .extracting(e -> ((StorageUnavailableException) e).reason())
                    .isEqualTo(StorageUnavailableException.Reason.NOT_PROVISIONED);
        }
    }

    /** A store every call of which throws {@code failure} (when given). */
    private static class Failing implements Store {
        private final RuntimeException failure;

        Failing(RuntimeException failure) {
            this.failure = failure;
        }

        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            throw failure;
        }

        @Override
        public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
            throw failure;
        }

        @Override
        public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            throw failure;
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            throw failure;
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
            throw failure;
        }

        @Override
        public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                       Duration ttl) {
            throw failure;
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            throw failure;
        }
    }
}
