package dev.idempotency.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Many threads on two store instances (two application servers: for SQL stores, two connection
 * pools) race for one key; the count of winners must be exactly one, every time, and every loser
 * must see the winner's record. Subclass it once per store and database:
 *
 * <pre>{@code
 * class MyStoreRaceTest extends StoreRaceTest {
 *     protected Store firstInstance() { return new MyStore(poolA); }
 *     protected Store secondInstance() { return new MyStore(poolB); }
 * }
 * }</pre>
 *
 * The instances are made once per class ({@link #firstInstance()} may create the schema).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StoreRaceTest {

    protected static final int THREADS = 48;
    protected static final int ROUNDS = 10;
    protected static final Instant T0 = Instant.parse("2031-03-01T09:00:00.123Z");
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration TTL = Duration.ofHours(24);
    private static final String FP = "c".repeat(64);

    private Store first;
    private Store second;
    private ExecutorService threads;

    /** The first instance over fresh storage; called once, before the races. */
    protected abstract Store firstInstance();

    /** A second instance over the same storage, with resources of its own (its own pool). */
    protected abstract Store secondInstance();

    /** An engine over instance {@code 0} or {@code 1}, for the race through the engine. */
    protected IdempotencyEngine engine(int instance, IdempotencyConfig config) {
        return new IdempotencyEngine(instance == 0 ? first : second, config);
    }

    /** Releases what the instances opened; called once, after the races. */
    protected void closeInstances() {
    }

    @BeforeAll
    void open() throws Exception {
        first = firstInstance();
        second = secondInstance();
        threads = Executors.newFixedThreadPool(THREADS);
        // Open every connection before the first race, so the races measure the store, not the pools.
        race(i -> () -> (i % 2 == 0 ? first : second).find(newKey(), T0));
    }

    @AfterAll
    void close() {
        threads.shutdownNow();
        closeInstances();
    }

    private static RecordKey newKey() {
        return new RecordKey("tenant-race", "POST", "/orders", "race-" + UUID.randomUUID());
    }

    @Test
    void exactlyOneOfManyReservationsOfAFreshKeyWins() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            RecordKey key = newKey();
            List<ReserveResult> results = race(i -> () -> (i % 2 == 0 ? first : second).reserve(key, FP, T0, LEASE, TTL));
            assertExactlyOneWinner(results, key);
        }
    }

    @Test
    void exactlyOneOfManyTakeOversOfALapsedLeaseWins() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            RecordKey key = newKey();
            Reservation stale = ((ReserveResult.Acquired) first.reserve(key, FP, T0, Duration.ofSeconds(1), TTL))
                    .reservation();
            Instant later = T0.plusSeconds(2);
            List<ReserveResult> results = race(i -> () -> (i % 2 == 0 ? first : second)
                    .reserve(key, FP, later, LEASE, TTL));
            Reservation winner = assertExactlyOneWinner(results, key);
            assertThat(stale.complete(new StoredResponse(200, null, Map.of(), new byte[0])))
                    .as("the stale owner is locked out").isFalse();
            assertThat(winner.ownerToken()).isNotEqualTo(stale.ownerToken());
        }
    }

    @Test
    void exactlyOneOfManyOptimisticInsertsWins() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            RecordKey key = newKey();
            List<Boolean> results = race(i -> () -> (i % 2 == 0 ? first : second).insertCompleted(key, FP,
                    new StoredResponse(201, "text/plain", Map.of(),
                            ("from " + i).getBytes(StandardCharsets.UTF_8)), T0, TTL));
            assertThat(results.stream().filter(Boolean::booleanValue).count()).isEqualTo(1);
        }
    }

    @Test
    void theEngineRunsTheHandlerExactlyOnceAcrossTwoInstances() throws Exception {
        IdempotencyConfig config = IdempotencyConfig.builder().renewLease(false).build();
        try (IdempotencyEngine a = engine(0, config); IdempotencyEngine b = engine(1, config)) {
            for (int round = 0; round < 3; round++) {
                String key = "engine-" + UUID.randomUUID();
                AtomicInteger executions = new AtomicInteger();
                List<Integer> statuses = race(i -> () -> {
                    Decision decision = (i % 2 == 0 ? a : b).before(post(key));
                    if (decision instanceof Decision.Proceed proceed) {
                        executions.incrementAndGet();
                        Thread.sleep(20);
                        proceed.execution().finish(CapturedResponse.of(201,
                                Map.of("Content-Type", List.of("application/json")), ORDER));
                        return 201;
                    }
                    return ((Decision.Respond) decision).reply().status();
                });
                assertThat(executions.get()).as("handler runs").isEqualTo(1);
                assertThat(statuses).allSatisfy(s -> assertThat(s).isIn(201, 409));
                Decision again = b.before(post(key));
                assertThat(again).isInstanceOf(Decision.Respond.class);
                assertThat(((Decision.Respond) again).isReplay()).isTrue();
                assertThat(new String(((Decision.Respond) again).reply().body(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"order\":1}");
            }
        }
    }

    private static final byte[] ORDER = "{\"order\":1}".getBytes(StandardCharsets.UTF_8);

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), "{\"sku\":7}".getBytes(StandardCharsets.UTF_8));
    }

    private Reservation assertExactlyOneWinner(List<ReserveResult> results, RecordKey key) {
        List<Reservation> winners = new ArrayList<>();
        for (ReserveResult result : results) {
            if (result instanceof ReserveResult.Acquired acquired) {
                winners.add(acquired.reservation());
            } else {
                IdempotencyRecord seen = ((ReserveResult.Existing) result).record();
                assertThat(seen.key()).isEqualTo(key);
                assertThat(seen.state()).isEqualTo(RecordState.IN_FLIGHT);
                assertThat(seen.fingerprint()).isEqualTo(FP);
            }
        }
        assertThat(winners).as("winners among " + results.size()).hasSize(1);
        return winners.get(0);
    }

    private interface Task<T> {
        Callable<T> forThread(int index);
    }

    /** Runs one task per thread, all released at once. */
    private <T> List<T> race(Task<T> task) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Callable<T> body = task.forThread(i);
            futures.add(threads.submit(() -> {
                start.await();
                return body.call();
            }));
        }
        start.countDown();
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(60, TimeUnit.SECONDS));
        }
        return results;
    }
}
