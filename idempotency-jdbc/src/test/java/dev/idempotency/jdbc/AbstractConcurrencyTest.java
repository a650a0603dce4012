package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
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
 * Many threads on two pools (two application instances) race for one key; the count of winners
 * must be exactly one, every time, and every loser must see the winner's record.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractConcurrencyTest {

    static final int THREADS = 48;
    static final int ROUNDS = 10;
    static final Instant T0 = Instant.parse("2031-03-01T09:00:00.123Z");
    static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration TTL = Duration.ofHours(24);
    static final String FP = "c".repeat(64);

    TestDatabase db;
    JdbcStore first;
    JdbcStore second;
    ExecutorService threads;

    abstract TestDatabase openDatabase();

    JdbcStore store(HikariDataSource pool) {
        return JdbcStore.create(pool);
    }

    @BeforeAll
    void open() throws Exception {
        db = openDatabase();
        first = store(db.pool("race-a", 8));
        second = store(db.pool("race-b", 8));
        first.createTableIfMissing();
        threads = Executors.newFixedThreadPool(THREADS);
        // Open every connection before the first race, so the races measure the store, not the pools.
        race(i -> () -> (i % 2 == 0 ? first : second).find(newKey(), T0));
    }

    @AfterAll
    void close() {
        threads.shutdownNow();
        db.close();
    }

    static RecordKey newKey() {
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
        try (IdempotencyEngine a = new IdempotencyEngine(first, config);
             IdempotencyEngine b = new IdempotencyEngine(second, config)) {
            for (int round = 0; round < 3; round++) {
                String key = "engine-" + UUID.randomUUID();
                AtomicInteger executions = new AtomicInteger();
                List<Integer> statuses = race(i -> () -> {
                    Decision decision = (i % 2 == 0 ? a : b).before(Requests.post("/orders", key, "{\"sku\":7}"));
                    if (decision instanceof Decision.Proceed proceed) {
                        executions.incrementAndGet();
                        Thread.sleep(20);
                        proceed.execution().finish(Requests.created("{\"order\":1}"));
                        return 201;
                    }
                    return ((Decision.Respond) decision).reply().status();
                });
                assertThat(executions.get()).as("handler runs").isEqualTo(1);
                assertThat(statuses).allSatisfy(s -> assertThat(s).isIn(201, 409));
                Decision again = b.before(Requests.post("/orders", key, "{\"sku\":7}"));
                assertThat(again).isInstanceOf(Decision.Respond.class);
                assertThat(((Decision.Respond) again).isReplay()).isTrue();
                assertThat(new String(((Decision.Respond) again).reply().body(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"order\":1}");
            }
        }
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

    interface Task<T> {
        Callable<T> forThread(int index);
    }

    /** Runs one task per thread, all released at once. */
    <T> List<T> race(Task<T> task) throws Exception {
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
