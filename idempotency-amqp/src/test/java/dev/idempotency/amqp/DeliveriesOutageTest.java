package dev.idempotency.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.OutageStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** While the store is down nothing is acknowledged or run; once it is back, each message runs once. */
class DeliveriesOutageTest {

    private RabbitQueue queue;
    private final OutageStore store = new OutageStore(new InMemoryStore());
    private IdempotentDeliveries deliveries;

    @BeforeEach
    void open() throws Exception {
        queue = new RabbitQueue("amqp-outage");
        deliveries = IdempotentDeliveries.builder(store, IdempotencyConfig.builder().build(), "orders")
                .requeueDelay(Duration.ofMillis(20)).build();
    }

    @AfterEach
    void close() throws Exception {
        queue.close();
        deliveries.close();
    }

    @Test
    void nothingIsAcknowledgedDuringAnOutageAndEverythingRunsOnceAfter() throws Exception {
        Consumers consumers = new Consumers();
        store.outage(StorageUnavailableException.Reason.UNREACHABLE);
        consumers.start(queue, 2, 3, deliveries, (delivery, context) -> consumers.ran(delivery));
        for (int i = 0; i < 6; i++) {
            queue.publish("m-" + i, "body-" + i);
        }

        // every message turned away at least once, some several times: requeued, never acknowledged
        await().atMost(Duration.ofSeconds(20)).until(() -> consumers.settled.stream()
                .filter(s -> s.redelivered()).map(Consumers.Settled::body).distinct().count() == 6);
        assertThat(consumers.settled).allSatisfy(s -> assertThat(s.settlement()).isEqualTo(Settlement.LATER));
        assertThat(consumers.runs).isEmpty();

        store.outage(null);
        await().atMost(Duration.ofSeconds(20)).until(() -> consumers.count(Settlement.DONE) == 6);
        assertThat(consumers.runs).hasSize(6);
        assertThat(consumers.totalRuns()).isEqualTo(6);
        assertThat(queue.ready()).isZero();
        assertThat(queue.takeDeadLetters()).isEmpty();
    }
}
