package dev.idempotency.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import dev.idempotency.core.call.Settlement;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The atomic mode on PostgreSQL: the handler's write, through the call's transaction, commits with the
 * record — the effects are the distinct messages exactly, and a failed handler's write rolls back.
 */
class PostgresAtomicDeliveriesTest {

    private EffectsTable db;
    private RabbitQueue queue;
    private IdempotentDeliveries deliveries;

    @BeforeEach
    void open() throws Exception {
        db = new EffectsTable();
        queue = new RabbitQueue("amqp-atomic");
        deliveries = IdempotentDeliveries.builder(db.store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build(),
                "orders").requeueDelay(Duration.ofMillis(20)).build();
    }

    @AfterEach
    void close() throws Exception {
        deliveries.close();
        queue.close();
        db.close();
    }

    @Test
    void theEffectsAreTheDistinctMessagesExactly() throws Exception {
        Consumers consumers = new Consumers();
        consumers.start(queue, 3, 4, deliveries, (delivery, context) -> {
            consumers.ran(delivery);
            EffectsTable.write(context.unwrap(Connection.class).orElseThrow(), delivery.getBody());
        });
        List<String> distinct = queue.publishCopies("pay", 25, 3);

        await().atMost(Duration.ofSeconds(30)).until(() -> consumers.count(Settlement.DONE) == 3L * distinct.size());
        assertThat(db.effects()).containsExactlyElementsOf(distinct);
        assertThat(consumers.totalRuns()).isEqualTo(distinct.size());
    }

    @Test
    void aFailedHandlersWriteRollsBackAndTheRedeliveryWritesOnce() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        Consumers consumers = new Consumers();
        consumers.start(queue, 1, 1, deliveries, (delivery, context) -> {
            EffectsTable.write(context.unwrap(Connection.class).orElseThrow(), delivery.getBody());
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("declined after writing");
            }
        });
        queue.publish("flaky-1", "flaky");

        await().atMost(Duration.ofSeconds(20)).until(() -> consumers.count(Settlement.DONE) == 1);
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(consumers.failures.get()).isEqualTo(1);
        assertThat(db.effects()).containsExactly("flaky");
    }
}
