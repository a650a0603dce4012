package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.call.CallOutcome;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.InterceptingStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Each outcome of a real call, settled as a message consumer would settle its delivery. */
class SettlementTest {

    private final InMemoryStore memory = new InMemoryStore();

    @Test
    void runOrRanIsDoneAnotherInputIsRefusedADuplicateInFlightComesLater() throws Exception {
        try (IdempotentCalls calls = new IdempotentCalls(memory, IdempotencyConfig.builder().build())) {
            IdempotentCall first = IdempotentCall.of("payments", "m-0001", "body-1");
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<CallOutcome<String>> slow = CompletableFuture.supplyAsync(() -> unchecked(() ->
                    calls.run(IdempotentCall.of("payments", "m-0002", "body-2"), String.class, context -> {
                        running.countDown();
                        return release.await(10, TimeUnit.SECONDS) ? "paid-2" : "timed out";
                    })));
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

            CallOutcome<String> executed = calls.run(first, String.class, context -> "paid-1");
            CallOutcome<String> replayed = calls.run(first, String.class, context -> "again");
            CallOutcome<String> reused = calls.run(IdempotentCall.of("payments", "m-0001", "other body"), String.class,
                    context -> "never");
            CallOutcome<String> inFlight = calls.run(IdempotentCall.of("payments", "m-0002", "body-2"), String.class,
                    context -> "never");
            release.countDown();

            assertThat(Settlement.of(executed)).isEqualTo(Settlement.DONE);
            assertThat(Settlement.of(replayed)).isEqualTo(Settlement.DONE);
            assertThat(replayed).isEqualTo(new CallOutcome.Replayed<>("paid-1"));
            assertThat(Settlement.of(reused)).isEqualTo(Settlement.REFUSED);
            assertThat(Settlement.of(inFlight)).isEqualTo(Settlement.LATER);
            assertThat(Settlement.of(slow.get(10, TimeUnit.SECONDS))).isEqualTo(Settlement.DONE);
        }
    }

    private interface Blocking<T> {
        T get() throws InterruptedException;
    }

    private static <T> T unchecked(Blocking<T> call) {
        try {
            return call.get();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anOutageComesLater() {
        Store down = new InterceptingStore(memory, operation -> {
            throw new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE, "down", null);
        });
        try (IdempotentCalls calls = new IdempotentCalls(down, IdempotencyConfig.builder().build())) {
            CallOutcome<String> outcome = calls.run(IdempotentCall.of("payments", "m-0003", "body"), String.class,
                    context -> "never");

            assertThat(Settlement.of(outcome)).isEqualTo(Settlement.LATER);
        }
    }
}
