package dev.idempotency.amqp.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.amqp.RabbitQueue;
import dev.idempotency.amqp.spring.SpringListeners.Fate;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.OutageStore;
import com.rabbitmq.client.AMQP;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Spring AMQP face: a {@code @RabbitListener} on the real broker, the advice in its container's chain. */
class IdempotentListenerAdviceTest {

    private static final Duration SOON = Duration.ofSeconds(20);

    private RabbitQueue queue;
    private final OutageStore store = new OutageStore(new InMemoryStore());
    private IdempotentListenerAdvice advice;
    private SpringListeners app;

    @BeforeEach
    void open() throws Exception {
        queue = new RabbitQueue("amqp-spring");
        advice = IdempotentListenerAdvice.builder(store, IdempotencyConfig.builder().build())
                .requeueDelay(Duration.ofMillis(50)).build();
    }

    @AfterEach
    void close() throws Exception {
        if (app != null) {
            app.close();
        }
        queue.close();
        advice.close();
    }

    @Test
    void concurrentConsumersRunEachDistinctMessageOnce() throws Exception {
        int distinct = 40;
        app = new SpringListeners(queue, advice, 4, 5, message -> {
            app.ran(message);
            Thread.sleep(5); // a little work, so that copies overlap
        });
        queue.publishCopies("order", distinct, 3);

        await().atMost(SOON).until(() -> app.count(Fate.DONE) == 3L * distinct);
        assertThat(app.runs).hasSize(distinct);
        assertThat(app.runs.values()).allSatisfy(runs -> assertThat(runs.get()).isEqualTo(1));
        assertThat(app.count(Fate.REFUSED) + app.count(Fate.FAILED)).isZero();
        assertThat(queue.ready()).isZero();
        assertThat(queue.takeDeadLetters()).isEmpty();
    }

    @Test
    void aDuplicateOfARunningMessageIsRequeuedThenAcknowledgedWithoutRunning() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        app = new SpringListeners(queue, advice, 2, 1, message -> {
            app.ran(message);
            started.countDown();
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
        });
        queue.publish("slow-1", "slow");
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        queue.publish("slow-1", "slow");

        await().atMost(SOON).until(() -> app.settled.stream()
                .filter(s -> s.fate() == Fate.LATER && s.redelivered()).count() >= 1);
        assertThat(app.count(Fate.DONE)).isZero();
        release.countDown();

        await().atMost(SOON).until(() -> app.count(Fate.DONE) == 2);
        assertThat(app.totalRuns()).isEqualTo(1);
        assertThat(app.settled.stream().filter(s -> s.fate() == Fate.DONE && s.redelivered())).hasSize(1);
        assertThat(queue.ready()).isZero();
    }

    @Test
    void anIdReusedWithAnotherBodyAndAMessageWithoutIdAreDeadLetteredAndNeverRun() throws Exception {
        app = new SpringListeners(queue, advice, 1, 1, message -> app.ran(message));
        queue.publish("pay-1", "first");
        await().atMost(SOON).until(() -> app.count(Fate.DONE) == 1);

        queue.publish("pay-1", "second");
        queue.publish(new AMQP.BasicProperties.Builder().build(), "anonymous");
        await().atMost(SOON).until(() -> app.count(Fate.REFUSED) == 2);

        assertThat(app.runs).containsOnlyKeys("first");
        await().atMost(SOON).until(() -> queue.takeDeadLetters(), dead -> dead.size() == 2);
    }

    @Test
    void aHeaderTheApplicationNamesIsTheKey() throws Exception {
        try (IdempotentListenerAdvice byHeader = IdempotentListenerAdvice.builder(new InMemoryStore(),
                IdempotencyConfig.builder().build()).keyHeader("x-order").scope("orders")
                .requeueDelay(Duration.ofMillis(50)).build()) {
            app = new SpringListeners(queue, byHeader, 2, 2, message -> app.ran(message));
            for (int copy = 0; copy < 3; copy++) {
                queue.publish(new AMQP.BasicProperties.Builder().messageId("m-" + copy)
                        .headers(Map.of("x-order", "order-7")).build(), "order-7");
            }

            await().atMost(SOON).until(() -> app.count(Fate.DONE) == 3);
            assertThat(app.runs).containsOnlyKeys("order-7");
            assertThat(app.totalRuns()).isEqualTo(1);
        }
    }

    @Test
    void aFailingListenerIsLeftToTheContainerAndItsRedeliveryRuns() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        app = new SpringListeners(queue, advice, 1, 1, message -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("declined");
            }
            app.ran(message);
        });
        queue.publish("flaky-1", "flaky");

        await().atMost(SOON).until(() -> app.count(Fate.DONE) == 1);
        assertThat(app.count(Fate.FAILED)).isEqualTo(1);
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(app.totalRuns()).isEqualTo(1);
    }

    @Test
    void nothingIsAcknowledgedDuringAnOutageAndEverythingRunsOnceAfter() throws Exception {
        store.outage(StorageUnavailableException.Reason.UNREACHABLE);
        app = new SpringListeners(queue, advice, 2, 3, message -> app.ran(message));
        for (int i = 0; i < 6; i++) {
            queue.publish("m-" + i, "body-" + i);
        }

        await().atMost(SOON).until(() -> app.settled.stream()
                .filter(SpringListeners.Settled::redelivered).map(SpringListeners.Settled::body).distinct().count() == 6);
        assertThat(app.settled).allSatisfy(s -> assertThat(s.fate()).isEqualTo(Fate.LATER));
        assertThat(app.runs).isEmpty();

        store.outage(null);
        await().atMost(SOON).until(() -> app.count(Fate.DONE) == 6);
        assertThat(app.totalRuns()).isEqualTo(6);
        assertThat(app.runs).hasSize(6);
        assertThat(queue.ready()).isZero();
    }
}
