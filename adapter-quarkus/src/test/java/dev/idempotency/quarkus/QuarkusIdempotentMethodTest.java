package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.call.CallInFlightException;
import dev.idempotency.core.call.KeyReusedException;
import dev.idempotency.quarkus.Payments.Charge;
import dev.idempotency.quarkus.Payments.Receipt;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotentMethod} on a CDI bean of the module's test application, in the reserve mode over
 * the JDBC store on its PostgreSQL schema ({@code idempotency.in-flight-wait=PT0.5S}).
 */
@QuarkusTest
@QuarkusTestResource(PostgresSchemaResource.class)
class QuarkusIdempotentMethodTest {

    @Inject
    Payments payments;

    @Test
    void aRepeatReturnsTheFirstResultWithoutRunning() throws Exception {
        Charge charge = new Charge(id(), "acct-1", 500);
        int runs = Payments.RUNS.get();

        Receipt first = payments.charge(charge, 0);
        Receipt repeat = payments.charge(charge, 0);

        assertThat(first).isEqualTo(new Receipt(charge.id(), 500, runs + 1));
        assertThat(repeat).isEqualTo(first);
        assertThat(Payments.RUNS.get()).isEqualTo(runs + 1);
    }

    @Test
    void aGenericResultComesBackAsItsTypeAndOnlyTheNamedInputCounts() {
        Charge charge = new Charge(id(), "acct-1", 900);
        int runs = Payments.RUNS.get();

        List<Receipt> first = payments.split(charge, 3, "first note");
        List<Receipt> repeat = payments.split(charge, 3, "another note");

        assertThat(repeat).isEqualTo(first).hasSize(3).allSatisfy(r -> assertThat(r).isInstanceOf(Receipt.class));
        assertThat(Payments.RUNS.get()).isEqualTo(runs + 1);
    }

    @Test
    void anotherArgumentUnderTheKeyIsRefused() throws Exception {
        String id = id();
        payments.charge(new Charge(id, "acct-1", 500), 0);
        int runs = Payments.RUNS.get();

        assertThatThrownBy(() -> payments.charge(new Charge(id, "acct-1", 501), 0))
                .isInstanceOf(KeyReusedException.class).hasMessageNotContaining(id);
        assertThatThrownBy(() -> payments.charge(new Charge(id, "acct-1", 500), 1))
                .as("every argument is the input").isInstanceOf(KeyReusedException.class);
        assertThat(Payments.RUNS.get()).isEqualTo(runs);
    }

    @Test
    void concurrentCallsUnderOneKeyRunTheMethodOnce() throws Exception {
        payments.charge(new Charge(id(), "acct-1", 1), 0); // warm
        int threads = 8;
        Charge charge = new Charge(id(), "acct-1", 700);
        int runs = Payments.RUNS.get();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Receipt>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return payments.charge(charge, 200);
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
        assertThat(Payments.RUNS.get()).isEqualTo(runs + 1);
    }

    @Test
    void aThrowingMethodReleasesTheKey() {
        Charge charge = new Charge(id(), "acct-1", 500);
        int runs = Payments.RUNS.get();

        assertThatThrownBy(() -> payments.decline(charge, true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("declined");
        Receipt retry = payments.decline(charge, false);

        assertThat(retry.run()).isEqualTo(runs + 2);
        assertThat(payments.decline(charge, false)).as("the input is the same: a replay").isEqualTo(retry);
        assertThat(Payments.RUNS.get()).isEqualTo(runs + 2);
    }

    @Test
    void aMethodWhoseResultCompletesLaterIsRefused() {
        int runs = Payments.RUNS.get();

        assertThatThrownBy(() -> payments.later(id())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CompletionStage");
        assertThat(Payments.RUNS.get()).isEqualTo(runs);
    }

    private static String id() {
        return "c-" + UUID.randomUUID();
    }
}
