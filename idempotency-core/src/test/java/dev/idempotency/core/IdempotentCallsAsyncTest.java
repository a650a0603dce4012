package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.KeyReusedException;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.InterceptingStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The asynchronous face: over an AsyncStore the caller's thread never runs the store or the action. */
class IdempotentCallsAsyncTest {

    private static final int DUPLICATES = 16;

    private final InMemoryStore memory = new InMemoryStore();
    private final ExecutorService storeThreads = Executors.newFixedThreadPool(4, r -> new Thread(r, "store"));
    private final AtomicInteger runs = new AtomicInteger();
    private final List<IdempotentCalls> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(IdempotentCalls::close);
        storeThreads.shutdownNow();
    }

    private IdempotentCalls calls(Store store, Mode mode) {
        IdempotentCalls calls = new IdempotentCalls(AsyncStore.of(store, storeThreads),
                IdempotencyConfig.builder().mode(mode).build());
        opened.add(calls);
        return calls;
    }

    private IdempotentCalls calls(Mode mode) {
        return calls(mode == Mode.ATOMIC ? new TestStores.Transactional(memory, r -> r) : memory, mode);
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Throwable failureOf(CompletionStage<?> stage) throws Exception {
        return stage.handle((value, failure) -> failure).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRepeatReplaysTheFirstResult(Mode mode) throws Exception {
        IdempotentCalls calls = calls(mode);
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", 500);

        CallOutcome<String> first = await(calls.runAsync(call, String.class, context -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("receipt");
        }));
        String repeat = await(calls.callAsync(call, String.class, context -> CompletableFuture.completedFuture("again")));

        assertThat(first).isEqualTo(new CallOutcome.Executed<>("receipt"));
        assertThat(repeat).isEqualTo("receipt");
        assertThat(runs).hasValue(1);
    }

    @Test
    void theCallerIsNotBlockedWhileTheStoreWorks() throws Exception {
        CountDownLatch storeHeld = new CountDownLatch(1);
        Store slow = new InterceptingStore(memory, operation -> {
            try {
                storeHeld.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        IdempotentCalls calls = calls(slow, Mode.RESERVE);
        List<String> actionThreads = new ArrayList<>();

        CompletionStage<CallOutcome<String>> outcome = calls.runAsync(IdempotentCall.of("payments", "k-0001", 1),
                String.class, context -> {
                    actionThreads.add(Thread.currentThread().getName());
                    return CompletableFuture.completedFuture("receipt");
                });

        assertThat(outcome.toCompletableFuture()).as("returned while the store still works").isNotDone();
        storeHeld.countDown();
        assertThat(await(outcome)).isEqualTo(new CallOutcome.Executed<>("receipt"));
        assertThat(actionThreads).as("started by the store's answer").containsExactly("store");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aFailedStageReleasesTheKeyAndReachesTheCallerUnchanged(Mode mode) throws Exception {
        IdempotentCalls calls = calls(mode);
        IdempotentCall call = IdempotentCall.of("payments", "k-0001", 500);
        IllegalStateException declined = new IllegalStateException("declined");

        Throwable failed = failureOf(calls.runAsync(call, String.class, context -> {
            runs.incrementAndGet();
            return CompletableFuture.failedFuture(declined);
        }));
        Throwable thrown = failureOf(calls.callAsync(call, String.class, context -> {
            runs.incrementAndGet();
            throw declined;
        }));
        CallOutcome<String> next = await(calls.runAsync(call, String.class, context -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("receipt");
        }));

        assertThat(failed).isSameAs(declined);
        assertThat(thrown).isSameAs(declined);
        assertThat(next).isEqualTo(new CallOutcome.Executed<>("receipt"));
        assertThat(runs).hasValue(3);
    }

    @Test
    void refusalsAreOutcomesOrTypedFailures() throws Exception {
        IdempotentCalls calls = calls(Mode.RESERVE);
        await(calls.runAsync(IdempotentCall.of("payments", "k-0001", 500), String.class,
                context -> CompletableFuture.completedFuture("receipt")));
        IdempotentCall other = IdempotentCall.of("payments", "k-0001", 501);

        assertThat(await(calls.runAsync(other, String.class, context -> CompletableFuture.completedFuture("x"))))
                .isEqualTo(new CallOutcome.KeyReused<>());
        assertThat(failureOf(calls.callAsync(other, String.class, context -> CompletableFuture.completedFuture("x"))))
                .isInstanceOf(KeyReusedException.class);
        assertThat(failureOf(calls.runAsync(IdempotentCall.of("payments", "", 1), String.class,
                context -> CompletableFuture.completedFuture("x")))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anOutageIsAnOutcome() throws Exception {
        Store down = new InterceptingStore(memory, operation -> {
            throw new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE, "refused", null);
        });
        IdempotentCalls calls = calls(down, Mode.RESERVE);

        CallOutcome<String> outcome = await(calls.runAsync(IdempotentCall.of("payments", "k-0001", 1), String.class,
                context -> {
                    runs.incrementAndGet();
                    return CompletableFuture.completedFuture("x");
                }));

        assertThat(outcome).isInstanceOf(CallOutcome.StorageUnavailable.class);
        assertThat(((CallOutcome.StorageUnavailable<String>) outcome).reason())
                .isEqualTo(StorageUnavailableException.Reason.UNREACHABLE);
        assertThat(runs).hasValue(0);
    }

    @Test
    void concurrentDuplicatesRunOnce() throws Exception {
        IdempotentCalls calls = calls(Mode.RESERVE);
        IdempotentCall call = IdempotentCall.of("payments", "k-race", 500);
        CompletableFuture<String> running = new CompletableFuture<>();
        CompletableFuture<Void> started = new CompletableFuture<>();

        CompletionStage<CallOutcome<String>> first = calls.runAsync(call, String.class, context -> {
            runs.incrementAndGet();
            started.complete(null);
            return running;
        });
        started.get(10, TimeUnit.SECONDS);
        List<CompletableFuture<CallOutcome<String>>> duplicates = new ArrayList<>();
        for (int i = 1; i < DUPLICATES; i++) {
            duplicates.add(calls.runAsync(call, String.class, context -> {
                runs.incrementAndGet();
                return CompletableFuture.completedFuture("duplicate");
            }).toCompletableFuture());
        }
        CompletableFuture.allOf(duplicates.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        running.complete("receipt");

        assertThat(await(first)).isEqualTo(new CallOutcome.Executed<>("receipt"));
        assertThat(duplicates).extracting(CompletableFuture::join).containsOnly(new CallOutcome.InFlight<>())
                .hasSize(DUPLICATES - 1);
        assertThat(runs).hasValue(1);
    }

    @Test
    void theAtomicActionReachesItsTransactionThroughTheContext() throws Exception {
        IdempotentCalls calls = calls(TestStores.transactional(memory), Mode.ATOMIC);

        String seen = await(calls.callAsync(IdempotentCall.of("payments", "k-0001", 1), String.class,
                context -> CompletableFuture.completedFuture(context.unwrap(String.class).orElse("none"))));

        assertThat(seen).isEqualTo("the transaction");
    }
}
