package dev.idempotency.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Java client's face on the real broker, the in-memory store (RESERVE mode). */
class IdempotentDeliveriesTest {

    private static final Duration SOON = Duration.ofSeconds(20);

    private RabbitQueue queue;
    private IdempotentDeliveries deliveries;
    private final Consumers consumers = new Consumers();

    @BeforeEach
    void open() throws Exception {
        queue = new RabbitQueue("amqp-deliveries");
        deliveries = IdempotentDeliveries.builder(new InMemoryStore(), IdempotencyConfig.builder().build(), "orders")
                .requeueDelay(Duration.ofMillis(50)).build();
    }

    @AfterEach
    void close() throws Exception {
        queue.close();
        deliveries.close();
    }

    @Test
    void severalConsumersRunEachDistinctMessageOnce() throws Exception {
        int distinct = 40;
                consumers.start(queue, 4, 5, deliveries, (delivery, context) -> {
            consumers.ran(delivery);
            Thread.sleep(5); // a little work, so that copies overlap
        });
        queue.publishCopies("order", distinct, 3);

        await().atMost(SOON).until(() -> consumers.count(Settlement.DONE) == 3L * distinct);
        assertThat(consumers.runs).hasSize(distinct);
        assertThat(consumers.runs.values()).allSatisfy(runs -> assertThat(runs.get()).isEqualTo(1));
        assertThat(consumers.count(Settlement.REFUSED)).isZero();
        assertThat(queue.ready()).isZero();
        assertThat(queue.takeDeadLetters()).isEmpty();
    }

    @Test
    void aDuplicateOfARunningMessageIsRequeuedThenAcknowledgedWithoutRunning() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        consumers.start(queue, 2, 1, deliveries, (delivery, context) -> {
            consumers.ran(delivery);
            started.countDown();
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
        });
        queue.publish("slow-1", "slow");
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        queue.publish("slow-1", "slow"); // the other consumer takes it while the first runs

        await().atMost(SOON).until(() -> consumers.settled.stream()
                .filter(s -> s.settlement() == Settlement.LATER && s.redelivered()).count() >= 1);
        assertThat(consumers.count(Settlement.DONE)).isZero();
        release.countDown();

        await().atMost(SOON).until(() -> consumers.count(Settlement.DONE) == 2);
        assertThat(consumers.runs).containsOnlyKeys("slow");
        assertThat(consumers.totalRuns()).isEqualTo(1);
        assertThat(consumers.settled.stream().filter(s -> s.settlement() == Settlement.DONE && s.redelivered()))
                .as("the duplicate, acknowledged once redelivered").hasSize(1);
        assertThat(queue.ready()).isZero();
    }

    @Test
    void aMessageReusingAnIdWithAnotherBodyIsDeadLetteredAndNeverRuns() throws Exception {
        consumers.start(queue, 1, 1, deliveries, (delivery, context) -> consumers.ran(delivery));
        queue.publish("pay-1", "first");
        await().atMost(SOON).until(() -> consumers.count(Settlement.DONE) == 1);

        queue.publish("pay-1", "second");
        await().atMost(SOON).until(() -> consumers.count(Settlement.REFUSED) == 1);

        assertThat(consumers.runs).containsOnlyKeys("first");
        await().atMost(SOON).until(() -> queue.takeDeadLetters(), dead -> dead.equals(List.of("second")));
    }

    @Test
    void aMessageWithoutIdIsDeadLetteredAndNeverRuns() throws Exception {
        consumers.start(queue, 1, 1, deliveries, (delivery, context) -> consumers.ran(delivery));
        queue.publish(new AMQP.BasicProperties.Builder().build(), "anonymous");
        queue.publish("cl\u00e9-1", "not-ascii"); // not a key the engine takes

        await().atMost(SOON).until(() -> consumers.count(Settlement.REFUSED) == 2);
        assertThat(consumers.runs).isEmpty();
        await().atMost(SOON).until(() -> queue.takeDeadLetters(), dead -> dead.size() == 2);
    }

    @Test
    void theKeyMayComeFromAHeaderTheApplicationNames() throws Exception {
        try (IdempotentDeliveries byHeader = IdempotentDeliveries.builder(new InMemoryStore(),
                IdempotencyConfig.builder().build(), "orders").keyHeader("x-order").requeueDelay(Duration.ofMillis(50))
                .build()) {
            consumers.start(queue, 2, 2, byHeader, (delivery, context) -> consumers.ran(delivery));
            for (int copy = 0; copy < 3; copy++) {
                // each copy a message id of its own: the header is the key
                queue.publish(new AMQP.BasicProperties.Builder().messageId("m-" + copy)
                        .headers(Map.of("x-order", "order-7")).build(), "order-7");
            }
            queue.publish(new AMQP.BasicProperties.Builder().messageId("m-9").build(), "no-header");

            await().atMost(SOON).until(() -> consumers.count(Settlement.DONE) + consumers.count(Settlement.REFUSED) == 4);
            assertThat(consumers.runs).containsOnlyKeys("order-7");
            assertThat(consumers.totalRuns()).isEqualTo(1);
            assertThat(consumers.count(Settlement.DONE)).isEqualTo(3);
            assertThat(queue.takeDeadLetters()).containsExactly("no-header");
        }
    }

    @Test
    void aFailingHandlerReleasesTheKeySoTheRedeliveryRuns() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        consumers.start(queue, 1, 1, deliveries, (delivery, context) -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("declined"); // the consumer requeues it
            }
            consumers.ran(delivery);
        });
        queue.publish("flaky-1", "flaky");

        await().atMost(SOON).until(() -> consumers.count(Settlement.DONE) == 1);
        assertThat(consumers.failures.get()).isEqualTo(1);
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(consumers.totalRuns()).isEqualTo(1);
    }

    @Test
    void theReadyMadeConsumerAcknowledgesWhatItHandled() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        var channel = queue.channel(2);
        channel.basicConsume(queue.name, false, deliveries.consumer(channel, (delivery, context) -> runs.incrementAndGet()));
        for (int i = 0; i < 3; i++) {
            queue.publish("same", "same");
        }
        queue.publish("other", "other");

        await().atMost(SOON).until(() -> queue.ready() == 0 && channel.messageCount(queue.name) == 0
                && runs.get() == 2);
        // all four acknowledged: nothing comes back when the channel closes
        channel.close();
        await().during(Duration.ofMillis(300)).atMost(SOON).until(() -> queue.ready() == 0);
        assertThat(runs.get()).isEqualTo(2);
    }
}
