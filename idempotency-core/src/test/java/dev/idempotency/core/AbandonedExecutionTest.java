package dev.idempotency.core;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A response the framework gave up on leaves its key to the lease: the handler may still be running. */
class AbandonedExecutionTest {

    private static final RecordKey KEY = new RecordKey("default", "POST", "/orders", "k1");

    private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryStore memory = new InMemoryStore();
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

    private IdempotencyEngine engine(Mode mode) {
        return new IdempotencyEngine(mode == Mode.ATOMIC ? new TestStores.Transactional(memory, r -> r) : memory,
                IdempotencyConfig.builder().mode(mode).clock(clock).lease(Duration.ofMillis(300))
                        .listener(e -> outcomes.add(e.outcome())).build());
    }

    private static RequestView post() {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of("k1")), "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theKeyStaysInFlightUntilItsLeaseEndsAndIsNoLongerRenewed() throws Exception {
        try (IdempotencyEngine engine = engine(Mode.RESERVE)) {
            Execution execution = ((Decision.Proceed) engine.before(post())).execution();
            execution.abandonAsync().toCompletableFuture().join();

            Decision duplicate = engine.before(post());
            assertThat(duplicate).isInstanceOf(Decision.Respond.class);
            assertThat(((Decision.Respond) duplicate).reply().status()).as("in progress, not run again").isEqualTo(409);
            assertThat(memory.find(KEY, clock.instant()).orElseThrow().state()).isEqualTo(RecordState.IN_FLIGHT);

            Instant leaseEnd = clock.instant().plusMillis(300);
            clock.advance(Duration.ofMillis(200));
            Thread.sleep(400); // several renewal periods: a renewal would have moved the lease to now + 300 ms
            assertThat(memory.find(KEY, clock.instant()).orElseThrow().leaseUntil()).isEqualTo(leaseEnd);
            clock.advance(Duration.ofMillis(101));
            assertThat(engine.before(post())).as("the lapsed lease frees the key").isInstanceOf(Decision.Proceed.class);

            execution.fail(new IllegalStateException("too late"));
            assertThat(outcomes).containsExactly(Outcome.EXECUTION_FAILED, Outcome.REJECTED);
        }
    }

    @Test
    void inTheAtomicModeTheTransactionRollsBack() {
        try (IdempotencyEngine engine = engine(Mode.ATOMIC)) {
            Execution execution = ((Decision.Proceed) engine.before(post())).execution();
            execution.abandonAsync().toCompletableFuture().join();

            assertThat(memory.size()).as("rolled back with the transaction").isZero();
        }
    }
}
