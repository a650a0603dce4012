package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Concurrent duplicates of one call, N threads, exact counts. */
class IdempotentCallsRaceTest {

    private static final int THREADS = 16;

    private final InMemoryStore memory = new InMemoryStore();
    private final AtomicInteger runs = new AtomicInteger();
    private final ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    private final List<IdempotentCalls> opened = new ArrayList<>();

    @AfterEach
    void close() {
        threads.shutdownNow();
        opened.forEach(IdempotentCalls::close);
    }

    private IdempotentCalls calls(Mode mode, Duration inFlightWait) {
        Store store = mode == Mode.ATOMIC ? new TestStores.Transactional(memory, r -> r) : memory;
        IdempotentCalls calls = new IdempotentCalls(store, IdempotencyConfig.builder().mode(mode)
                .inFlightWait(inFlightWait).build());
        opened.add(calls);
        return calls;
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"RESERVE", "ATOMIC"})
    void oneDuplicateRunsTheOthersAreInFlight(Mode mode) throws Exception {
        IdempotentCalls calls = calls(mode, Duration.ZERO);
        IdempotentCall call = IdempotentCall.of("payments", "k-race", Map.of("cents", 500));
        CountDownLatch othersAnswered = new CountDownLatch(THREADS - 1);

        List<CallOutcome<String>> outcomes = race(() -> calls.run(call, String.class, context -> {
            runs.incrementAndGet();
            // Holds the key until every other duplicate has been answered.
            othersAnswered.await(10, TimeUnit.SECONDS);
            return "receipt";
        }), othersAnswered);

        assertThat(runs).hasValue(1);
        assertThat(countByType(outcomes)).containsExactlyInAnyOrderEntriesOf(Map.of(
                CallOutcome.Executed.class, 1L, CallOutcome.InFlight.class, (long) THREADS - 1));
        assertThat(calls.run(call, String.class, context -> "again")).isEqualTo(new CallOutcome.Replayed<>("receipt"));
        assertThat(runs).hasValue(1);
    }

    /** The reserve mode's wait; the atomic mode's is the database's row lock, which the in-memory stand-in has not. */
    @Test
    void duplicatesThatWaitGetTheFirstResult() throws Exception {
        IdempotentCalls calls = calls(Mode.RESERVE, Duration.ofSeconds(30));
        IdempotentCall call = IdempotentCall.of("payments", "k-race", Map.of("cents", 500));

        List<CallOutcome<String>> outcomes = race(() -> calls.run(call, String.class, context -> {
            runs.incrementAndGet();
            Thread.sleep(200);
            return "receipt";
        }), null);

        assertThat(runs).hasValue(1);
        assertThat(outcomes).filteredOn(o -> o instanceof CallOutcome.Executed).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o instanceof CallOutcome.Replayed)
                .hasSize(THREADS - 1).containsOnly(new CallOutcome.Replayed<>("receipt"));
    }

    @Test
    void optimisticDuplicatesCanAllRunAndTheFirstStoredIsReplayed() throws Exception {
        IdempotentCalls calls = calls(Mode.OPTIMISTIC, Duration.ZERO);
        IdempotentCall call = IdempotentCall.of("payments", "k-race", Map.of("cents", 500));
        CyclicBarrier allInside = new CyclicBarrier(THREADS);

        List<CallOutcome<Integer>> outcomes = race(() -> calls.run(call, Integer.class, context -> {
            int run = runs.incrementAndGet();
            allInside.await(10, TimeUnit.SECONDS); // every duplicate is running at once
            return run;
        }), null);

        assertThat(runs).hasValue(THREADS);
        assertThat(outcomes).allMatch(o -> o instanceof CallOutcome.Executed);
        CallOutcome<Integer> repeat = calls.run(call, Integer.class, context -> -1);
        assertThat(repeat).isInstanceOf(CallOutcome.Replayed.class);
        assertThat(((CallOutcome.Replayed<Integer>) repeat).value()).isBetween(1, THREADS);
        assertThat(runs).hasValue(THREADS);
    }

    interface Attempt<T> {
        CallOutcome<T> run() throws Exception;
    }

    /** Runs {@code attempt} on every thread at once; counts each outcome down on {@code answered} but the executed one's. */
    private <T> List<CallOutcome<T>> race(Attempt<T> attempt, CountDownLatch answered) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<CallOutcome<T>>> futures = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            futures.add(threads.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                CallOutcome<T> outcome = attempt.run();
                if (answered != null && !(outcome instanceof CallOutcome.Executed)) {
                    answered.countDown();
                }
                return outcome;
            }));
        }
        List<CallOutcome<T>> outcomes = new ArrayList<>();
        for (Future<CallOutcome<T>> future : futures) {
            outcomes.add(future.get(30, TimeUnit.SECONDS));
        }
        return outcomes;
    }

    private static <T> Map<Class<?>, Long> countByType(List<CallOutcome<T>> outcomes) {
        return outcomes.stream().collect(Collectors.groupingBy(Object::getClass, Collectors.counting()));
    }
}
