package dev.idempotency.amqp.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.amqp.EffectsTable;
import dev.idempotency.amqp.RabbitQueue;
import dev.idempotency.amqp.spring.SpringListeners.Fate;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;

/**
 * The atomic mode on PostgreSQL under a {@code @RabbitListener}: the listener writes through
 * {@link IdempotentListenerAdvice#context()}'s connection, which commits with the record.
 */
class PostgresAtomicListenerTest {

    private EffectsTable db;
    private RabbitQueue queue;
    private IdempotentListenerAdvice advice;
    private SpringListeners app;

    @BeforeEach
    void open() throws Exception {
        db = new EffectsTable();
        queue = new RabbitQueue("amqp-spring-atomic");
        advice = IdempotentListenerAdvice.builder(db.store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build())
                .requeueDelay(Duration.ofMillis(20)).build();
    }

    @AfterEach
    void close() throws Exception {
        if (app != null) {
            app.close();
        }
        advice.close();
        queue.close();
        db.close();
    }

    private static void write(Message message) throws Exception {
        Connection transaction = IdempotentListenerAdvice.context().orElseThrow().unwrap(Connection.class).orElseThrow();
        EffectsTable.write(transaction, message.getBody());
    }

    @Test
    void theEffectsAreTheDistinctMessagesExactly() throws Exception {
        app = new SpringListeners(queue, advice, 3, 4, message -> {
            app.ran(message);
            write(message);
        });
        List<String> distinct = queue.publishCopies("pay", 25, 3);

        await().atMost(Duration.ofSeconds(30)).until(() -> app.count(Fate.DONE) == 3L * distinct.size());
        assertThat(db.effects()).containsExactlyElementsOf(distinct);
        assertThat(app.totalRuns()).isEqualTo(distinct.size());
        assertThat(IdempotentListenerAdvice.context()).as("outside a listener").isEmpty();
    }

    @Test
    void aFailedListenersWriteRollsBackAndTheRedeliveryWritesOnce() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        app = new SpringListeners(queue, advice, 1, 1, message -> {
            write(message);
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("declined after writing");
            }
        });
        queue.publish("flaky-1", "flaky");

        await().atMost(Duration.ofSeconds(20)).until(() -> app.count(Fate.DONE) == 1);
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(app.count(Fate.FAILED)).isEqualTo(1);
        assertThat(db.effects()).containsExactly("flaky");
    }
}
