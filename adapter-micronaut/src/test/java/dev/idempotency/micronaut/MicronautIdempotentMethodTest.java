package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.call.CallInFlightException;
import dev.idempotency.core.call.KeyReusedException;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.micronaut.MethodPayments.Charge;
import dev.idempotency.micronaut.MethodPayments.Receipt;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.micronaut.context.ApplicationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotentMethod} on a bean of a Micronaut context, in the reserve mode over the JDBC store
 * on a throwaway PostgreSQL schema ({@code idempotency.in-flight-wait=PT0.5S}); results through
 * Micronaut Serialization's {@code JsonMapper}.
 */
class MicronautIdempotentMethodTest {

    private static PostgresTestSchema schema;
    private static ApplicationContext context;
    private static MethodPayments payments;

    @BeforeAll
    static void start() {
        schema = new PostgresTestSchema();
        context = ApplicationContext.run(Map.of(
                "datasources.default.url", schema.url(),
                "datasources.default.username", PostgresTestSchema.USER,
                "datasources.default.password", PostgresTestSchema.PASSWORD,
                "datasources.default.driver-class-name", "org.postgresql.Driver",
                "idempotency.enabled", true,
                "idempotency.in-flight-wait", "PT0.5S",
                "idempotency.jdbc.initialize-schema", "always"));
        payments = context.getBean(MethodPayments.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    void aRepeatReturnsTheFirstResultWithoutRunningItsRecordInTheJdbcStore() throws Exception {
        Charge charge = new Charge(id(), "acct-1", 500);
        int runs = MethodPayments.RUNS.get();

        Receipt first = payments.charge(charge, 0);
        Receipt repeat = payments.charge(charge, 0);

        assertThat(first).isEqualTo(new Receipt(charge.id(), 500, runs + 1));
        assertThat(repeat).isEqualTo(first);
        assertThat(MethodPayments.RUNS.get()).isEqualTo(runs + 1);
        assertThat(context.getBean(Store.class)).isInstanceOf(JdbcStore.class);
    }

    @Test
    void aGenericResultComesBackAsItsTypeAndOnlyTheNamedInputCounts() {
        Charge charge = new Charge(id(), "acct-1", 900);
        int runs = MethodPayments.RUNS.get();

        List<Receipt> first = payments.split(charge, 3, "first note");
        List<Receipt> repeat = payments.split(charge, 3, "another note");

        assertThat(repeat).isEqualTo(first).hasSize(3).allSatisfy(r -> assertThat(r).isInstanceOf(Receipt.class));
        assertThat(MethodPayments.RUNS.get()).isEqualTo(runs + 1);
    }

    @Test
    void anotherArgumentUnderTheKeyIsRefused() throws Exception {
        String id = id();
        payments.charge(new Charge(id, "acct-1", 500), 0);
        int runs = MethodPayments.RUNS.get();

        assertThatThrownBy(() -> payments.charge(new Charge(id, "acct-1", 501), 0))
                .isInstanceOf(KeyReusedException.class).hasMessageNotContaining(id);
        assertThatThrownBy(() -> payments.charge(new Charge(id, "acct-1", 500), 1))
                .as("every argument is the input").isInstanceOf(KeyReusedException.class);
        assertThat(MethodPayments.RUNS.get()).isEqualTo(runs);
    }

    @Test
    void concurrentCallsUnderOneKeyRunTheMethodOnce() throws Exception {
        payments.charge(new Charge(id(), "acct-1", 1), 0); // warm
        int threads = 8;
        Charge charge = new Charge(id(), "acct-1", 700);
        int runs = MethodPayments.RUNS.get();
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
        assertThat(MethodPayments.RUNS.get()).isEqualTo(runs + 1);
    }

    @Test
    void aThrowingMethodReleasesTheKey() {
        Charge charge = new Charge(id(), "acct-1", 500);
        int runs = MethodPayments.RUNS.get();

        assertThatThrownBy(() -> payments.decline(charge, true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("declined");
        Receipt retry = payments.decline(charge, false);

        assertThat(retry.run()).isEqualTo(runs + 2);
        assertThat(payments.decline(charge, false)).as("the input is the same: a replay").isEqualTo(retry);
        assertThat(MethodPayments.RUNS.get()).isEqualTo(runs + 2);
    }

    @Test
    void aMethodWhoseResultCompletesLaterIsRefused() {
        int runs = MethodPayments.RUNS.get();

        assertThatThrownBy(() -> payments.later(id())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CompletionStage");
        assertThat(MethodPayments.RUNS.get()).isEqualTo(runs);
    }

    private static String id() {
        return "c-" + UUID.randomUUID();
    }
}
