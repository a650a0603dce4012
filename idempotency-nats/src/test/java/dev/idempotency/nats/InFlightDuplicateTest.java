package dev.idempotency.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A duplicate delivered while the first copy still runs is not acknowledged: it is nak'd with the
 * redelivery delay, comes back, and is then acknowledged without running.
 */
class InFlightDuplicateTest {

    private static final Duration REDELIVERY = Duration.ofMillis(300);

    private TestStream stream;
    private IdempotentCalls calls;
    private final ExecutorService threads = Executors.newSingleThreadExecutor();

    @BeforeEach
    void open() throws Exception {
        stream = new TestStream(Duration.ofMinutes(2));
        calls = new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder().build());
    }

    @AfterEach
    void close() throws Exception {
        threads.shutdownNow();
        calls.close();
        stream.close();
    }

    @Test
    void aDuplicateInFlightIsDeliveredAgainAndThenAcknowledgedWithoutRunning() throws Exception {
        // Two copies under one application key (JetStream would drop a second Nats-Msg-Id in its window).
        stream.publish("Order-Id", "order-1", "pay 5");
        stream.publish("Order-Id", "order-1", "pay 5");
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).keyHeader("Order-Id")
                .redeliveryDelay(REDELIVERY).build();
        JetStreamSubscription subscription = stream.pull(stream.connection, "workers", Duration.ofSeconds(30));
        List<Message> both = subscription.fetch(2, Duration.ofSeconds(5));
        assertThat(both).hasSize(2);
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);

        Future<Settlement> first = threads.submit(() -> consumer.handle(both.get(0), (message, context) -> {
            runs.incrementAndGet();
            running.countDown();
            assertThat(finish.await(10, TimeUnit.SECONDS)).isTrue();
        }));
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        long beforeNak = System.nanoTime();
        Settlement duplicate = consumer.handle(both.get(1), (message, context) -> runs.incrementAndGet());

        assertThat(duplicate).isEqualTo(Settlement.LATER);
        assertThat(runs).hasValue(1);
        finish.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(Settlement.DONE);

        List<Message> again = subscription.fetch(1, Duration.ofSeconds(10));
        assertThat(again).hasSize(1);
        Message redelivered = again.get(0);
        assertThat(Duration.ofNanos(System.nanoTime() - beforeNak)).isGreaterThanOrEqualTo(REDELIVERY);
        assertThat(redelivered.metaData().streamSequence()).isEqualTo(both.get(1).metaData().streamSequence());
        assertThat(redelivered.metaData().deliveredCount()).isEqualTo(2);
        assertThat(consumer.handle(redelivered, (message, context) -> runs.incrementAndGet()))
                .isEqualTo(Settlement.DONE);
        assertThat(runs).hasValue(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> stream.info("workers").getNumAckPending() == 0);
        assertThat(subscription.fetch(1, Duration.ofMillis(500))).isEmpty();
    }

    @Test
    void theSameMessageRedeliveredWhileItRunsIsNotRunTwice() throws Exception {
        // The consumer's ack wait ends while the handler still runs: JetStream hands the same message
        // to a second worker.
        stream.publish(IdempotentConsumer.MESSAGE_ID, "order-2", "pay 7");
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).redeliveryDelay(REDELIVERY).build();
        JetStreamSubscription first = stream.pull(stream.connection, "slow", Duration.ofMillis(500));
        JetStreamSubscription second = stream.pull(stream.connect(), "slow", Duration.ofMillis(500));
        Message delivered = first.fetch(1, Duration.ofSeconds(5)).get(0);
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);

        Future<Settlement> slow = threads.submit(() -> consumer.handle(delivered, (message, context) -> {
            runs.incrementAndGet();
            running.countDown();
            assertThat(finish.await(10, TimeUnit.SECONDS)).isTrue();
        }));
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        Message redelivered = second.fetch(1, Duration.ofSeconds(5)).get(0);
        assertThat(redelivered.metaData().streamSequence()).isEqualTo(delivered.metaData().streamSequence());

        assertThat(consumer.handle(redelivered, (message, context) -> runs.incrementAndGet()))
                .isEqualTo(Settlement.LATER);
        finish.countDown();
        assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo(Settlement.DONE);

        assertThat(runs).hasValue(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> stream.info("slow").getNumAckPending() == 0);
    }
}
