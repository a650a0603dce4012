package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testkit.IdempotentMethodChecks.Charge;
import dev.idempotency.testkit.IdempotentMethodChecks.Receipt;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.micronaut.context.ApplicationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotentMethod} in the optimistic mode over the JDBC store on PostgreSQL: concurrent calls
 * may each run and get their own result; once one is stored, a repeat returns it without running.
 */
class MicronautIdempotentMethodOptimisticTest {

    private static PostgresTestSchema schema;
    private static ApplicationContext context;
    private static MethodPayments payments;

    @BeforeAll
    static void start() {
        schema = new PostgresTestSchema();
        context = MicronautIdempotentMethodTest.start(schema, "optimistic");
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
    void concurrentCallsEachRunAndARepeatGetsTheFirstStored() throws Exception {
        int threads = 8;
        Charge charge = new Charge("c-" + UUID.randomUUID(), "acct-1", 700);
        int runs = payments.runs();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Receipt>> answers = new ArrayList<>();
        List<Receipt> results = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return payments.charge(charge, 300);
                }));
            }
            start.countDown();
            for (Future<Receipt> answer : answers) {
                results.add(answer.get(30, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        int ran = payments.runs() - runs;

        Receipt repeat = payments.charge(charge, 300); // the same arguments: the same call

        assertThat(ran).isBetween(1, threads);
        assertThat(results.stream().map(Receipt::run).distinct().count()).as("each got its own run's result")
                .isEqualTo(ran);
        assertThat(results).contains(repeat);
        assertThat(payments.runs()).as("the repeat did not run").isEqualTo(runs + ran);
    }
}
