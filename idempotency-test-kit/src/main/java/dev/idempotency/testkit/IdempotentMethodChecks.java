package dev.idempotency.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.call.CallInFlightException;
import dev.idempotency.core.call.KeyReusedException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * One suite for every framework's idempotent-method annotation, in the reserve mode with an in-flight
 * wait longer than {@link #DELAY_MS}: the adapter's test runs its framework with a bean implementing
 * {@link Payments}, each method annotated as that interface says, and returns it from
 * {@link #payments()}. Counts are exact: the bean counts its runs.
 */
public abstract class IdempotentMethodChecks {

    /** How long {@link #concurrentCallsUnderOneKeyRunTheMethodOnce} makes the first call take. */
    public static final long DELAY_MS = 200;

    public record Charge(String id, String account, long cents) {}

    public record Receipt(String id, long cents, int run) {}

    /** The adapter's bean; {@code runs()} is not intercepted. */
    public interface Payments {

        /** Scope {@code payments}, key {@code charge.id}, every argument the input. */
        Receipt charge(Charge charge, long delayMs) throws InterruptedException;

        /** Scope {@code payments.split}, key {@code charge.id}, input {@code charge} only. */
        List<Receipt> split(Charge charge, int parts, String note);

        /** Scope {@code payments.declined}, key {@code charge.id}; throws {@code IllegalStateException("declined")} when told. */
        Receipt decline(Charge charge, boolean fail);

        /** Scope {@code payments.later}, key {@code id}: refused, as its result completes later. */
        CompletionStage<String> later(String id);

        /** How many times an intercepted method ran. */
        int runs();
    }

    /** What the suite's bean methods return. */
    public static Receipt receipt(Charge charge, int run) {
        return new Receipt(charge.id(), charge.cents(), run);
    }

    public static List<Receipt> split(Charge charge, int parts, int run) {
        return IntStream.range(0, parts)
                .mapToObj(i -> new Receipt(charge.id() + "-" + i, charge.cents() / parts, run)).toList();
    }

    protected abstract Payments payments();

    @Test
    void aRepeatReturnsTheFirstResultWithoutRunning() throws Exception {
        Charge charge = new Charge(id(), "acct-1", 500);
        int runs = payments().runs();

        Receipt first = payments().charge(charge, 0);
        Receipt repeat = payments().charge(charge, 0);

        assertThat(first).isEqualTo(new Receipt(charge.id(), 500, runs + 1));
        assertThat(repeat).isEqualTo(first);
        assertThat(payments().runs()).isEqualTo(runs + 1);
    }

    @Test
    void aGenericResultComesBackAsItsTypeAndOnlyTheNamedInputCounts() {
        Charge charge = new Charge(id(), "acct-1", 900);
        int runs = payments().runs();

        List<Receipt> first = payments().split(charge, 3, "first note");
        List<Receipt> repeat = payments().split(charge, 3, "another note");

        assertThat(repeat).isEqualTo(first).hasSize(3).allSatisfy(r -> assertThat(r).isInstanceOf(Receipt.class));
        assertThat(payments().runs()).isEqualTo(runs + 1);
    }

    @Test
    void anotherArgumentUnderTheKeyIsRefused() throws Exception {
        String id = id();
        payments().charge(new Charge(id, "acct-1", 500), 0);
        int runs = payments().runs();

        assertThatThrownBy(() -> payments().charge(new Charge(id, "acct-1", 501), 0))
                .isInstanceOf(KeyReusedException.class).hasMessageNotContaining(id);
        assertThatThrownBy(() -> payments().charge(new Charge(id, "acct-1", 500), 1))
                .as("every argument is the input").isInstanceOf(KeyReusedException.class);
        assertThat(payments().runs()).isEqualTo(runs);
    }

    @Test
    void concurrentCallsUnderOneKeyRunTheMethodOnce() throws Exception {
        payments().charge(new Charge(id(), "acct-1", 1), 0); // warm
        int threads = 8;
        Charge charge = new Charge(id(), "acct-1", 700);
        int runs = payments().runs();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Receipt>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return payments().charge(charge, DELAY_MS);
                }));
            }
            start.countDown();
            int answered = 0;
            for (Future<Receipt> answer : answers) {
                try {
                    assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(new Receipt(charge.id(), 700, runs + 1));
                    answered++;
                } catch (ExecutionException e) { // waited the in-flight wait out: refused, did not run
                    assertThat(e.getCause()).isInstanceOf(CallInFlightException.class);
                }
            }
            assertThat(answered).isPositive();
        } finally {
            pool.shutdownNow();
        }
        assertThat(payments().runs()).isEqualTo(runs + 1);
    }

    @Test
    void aThrowingMethodReleasesTheKey() {
        Charge charge = new Charge(id(), "acct-1", 500);
        int runs = payments().runs();

        assertThatThrownBy(() -> payments().decline(charge, true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("declined");
        Receipt retry = payments().decline(charge, false);

        assertThat(retry.run()).isEqualTo(runs + 2);
        assertThat(payments().decline(charge, false)).as("the input is the same: a replay").isEqualTo(retry);
        assertThat(payments().runs()).isEqualTo(runs + 2);
    }

    @Test
    void aMethodWhoseResultCompletesLaterIsRefused() {
        int runs = payments().runs();

        assertThatThrownBy(() -> payments().later(id())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CompletionStage");
        assertThat(payments().runs()).isEqualTo(runs);
    }

    private static String id() {
        return "c-" + UUID.randomUUID();
    }
}
