package dev.idempotency.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.testkit.OutageStore;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** While the store is down nothing is acknowledged nor run; once it is back every message runs once. */
class StoreOutageTest {

    private static final int MESSAGES = 5;

    private TestStream stream;
    private OutageStore store;
    private IdempotentCalls calls;

    @BeforeEach
    void open() throws Exception {
        stream = new TestStream(Duration.ofMinutes(2));
        store = new OutageStore(new InMemoryStore());
        calls = new IdempotentCalls(store, IdempotencyConfig.builder().build());
    }

    @AfterEach
    void close() throws Exception {
        calls.close();
        stream.close();
    }

    @Test
    void duringAnOutageNothingIsAcknowledgedAndEveryMessageRunsOnceAfterIt() throws Exception {
        for (int i = 0; i < MESSAGES; i++) {
            stream.publish(IdempotentConsumer.MESSAGE_ID, "order-" + i, "order-" + i);
        }
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).redeliveryDelay(Duration.ofMillis(200)).build();
        JetStreamSubscription subscription = stream.pull(stream.connection, "workers", Duration.ofSeconds(30));
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        MessageAction<RuntimeException> counting = (message, context) -> runs.computeIfAbsent(
                new String(message.getData(), StandardCharsets.UTF_8), k -> new AtomicInteger()).incrementAndGet();
        store.outage(StorageUnavailableException.Reason.UNREACHABLE);

        // Two rounds during the outage: each message is refused for now, and delivered again.
        for (int round = 1; round <= 2; round++) {
            List<Message> delivered = fetch(subscription, MESSAGES);
            for (Message message : delivered) {
                assertThat(message.metaData().deliveredCount()).isEqualTo(round);
                assertThat(consumer.handle(message, counting)).isEqualTo(Settlement.LATER);
            }
            assertThat(stream.info("workers").getNumAckPending()).isEqualTo(MESSAGES);
        }
        assertThat(runs).isEmpty();

        store.outage(null);
        int done = 0;
        for (Message message : fetch(subscription, MESSAGES)) {
            assertThat(message.metaData().deliveredCount()).isEqualTo(3);
            done += consumer.handle(message, counting) == Settlement.DONE ? 1 : 0;
        }

        assertThat(done).isEqualTo(MESSAGES);
        assertThat(runs).hasSize(MESSAGES);
        assertThat(runs.values()).allMatch(count -> count.get() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> stream.info("workers").getNumAckPending() == 0);
        assertThat(stream.info("workers").getNumPending()).isZero();
    }

    /** Fetches until {@code count} messages came, or fails after a few seconds. */
    private static List<Message> fetch(JetStreamSubscription subscription, int count) {
        List<Message> messages = new java.util.ArrayList<>();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            messages.addAll(subscription.fetch(count - messages.size(), Duration.ofMillis(500)));
            return messages.size() == count;
        });
        return messages;
    }
}
