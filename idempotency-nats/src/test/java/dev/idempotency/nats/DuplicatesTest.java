package dev.idempotency.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PushSubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Duplicates JetStream stores — published under the same {@code Nats-Msg-Id} after the stream's
 * deduplication window, or keyed by a header of the application's that JetStream does not know — run
 * once per key across several workers of one durable consumer, pull and push.
 */
class DuplicatesTest {

    private static final int IDS = 30;
    private static final Duration DEDUP_WINDOW = Duration.ofMillis(300);

    private TestStream stream;
    private IdempotentCalls calls;
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    @BeforeEach
    void open() throws Exception {
        stream = new TestStream(DEDUP_WINDOW);
        calls = new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder().build());
    }

    @AfterEach
    void close() throws Exception {
        calls.close();
        stream.close();
    }

    private MessageAction<InterruptedException> counting() {
        return (message, context) -> {
            runs.computeIfAbsent(new String(message.getData(), StandardCharsets.UTF_8), k -> new AtomicInteger())
                    .incrementAndGet();
            Thread.sleep(5); // long enough for a duplicate to meet it in flight now and then
        };
    }

    /** Every third id twice more: IDS + 2 * IDS / 3 messages in the stream. */
    private static int published() {
        return IDS + 2 * ((IDS + 2) / 3);
    }

    @Test
    void twoPullWorkersRunEachMessageIdOnceAndAckEveryCopy() throws Exception {
        for (int i = 0; i < IDS; i++) {
            String id = "order-" + i;
            assertThat(stream.publish(IdempotentConsumer.MESSAGE_ID, id, id).isDuplicate()).isFalse();
        }
        // Within the window JetStream drops a copy itself (isDuplicate); once it has passed, it stores it.
        for (int copy = 0; copy < 2; copy++) {
            for (int i = 0; i < IDS; i += 3) {
                String id = "order-" + i;
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                        .until(() -> !stream.publish(IdempotentConsumer.MESSAGE_ID, id, id).isDuplicate());
            }
        }
        assertThat(stream.management().getStreamInfo(stream.name).getStreamState().getMsgCount())
                .isEqualTo(published());
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).redeliveryDelay(Duration.ofMillis(100)).build();
        Connection second = stream.connect();

        try (PullWorkers workers = new PullWorkers(consumer, counting(), List.of(
                stream.pull(stream.connection, "workers", Duration.ofSeconds(10)),
                stream.pull(second, "workers", Duration.ofSeconds(10))))) {
            await().atMost(Duration.ofSeconds(20)).until(() -> workers.settled(Settlement.DONE) == published()
                    || workers.failure.get() != null);
            assertThat(workers.failure.get()).isNull();
            assertThat(workers.settled(Settlement.REFUSED)).isZero();
        }

        assertThat(runs).hasSize(IDS);
        assertThat(runs.values()).allMatch(count -> count.get() == 1);
        assertThat(stream.info("workers").getNumAckPending()).isZero();
        assertThat(stream.info("workers").getNumPending()).isZero();
    }

    @Test
    void twoDispatchersOfAQueueGroupRunEachApplicationKeyOnce() throws Exception {
        stream.management().addOrUpdateConsumer(stream.name, stream.consumer("pushed", Duration.ofSeconds(10))
                .deliverSubject("deliver." + stream.name).deliverGroup("workers").build());
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).keyHeader("Order-Id")
                .redeliveryDelay(Duration.ofMillis(100)).build();
        AtomicInteger handled = new AtomicInteger();
        MessageAction<InterruptedException> counting = counting();
        for (Connection connection : List.of(stream.connection, stream.connect())) {
            Dispatcher dispatcher = connection.createDispatcher();
            connection.jetStream().subscribe(null, "workers", dispatcher, consumer.handler((message, context) -> {
                counting.handle(message, context);
                handled.incrementAndGet();
            }), false, PushSubscribeOptions.bind(stream.name, "pushed"));
            connection.flush(Duration.ofSeconds(5));
        }

        // JetStream knows nothing of Order-Id: every copy is stored, however close together.
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < IDS; i++) {
                if (copy == 0 || i % 3 == 0) {
                    stream.publish("Order-Id", "order-" + i, "order-" + i);
                }
            }
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> stream.info("pushed").getNumAckPending() == 0
                && stream.info("pushed").getNumPending() == 0 && runs.size() == IDS);
        assertThat(stream.management().getStreamInfo(stream.name).getStreamState().getMsgCount())
                .isEqualTo(published());
        assertThat(runs.values()).allMatch(count -> count.get() == 1);
        assertThat(handled).hasValue(IDS);
    }

    @Test
    void eachConsumerOfAStreamHandlesAMessageOnceUnderItsOwnScope() throws Exception {
        for (int i = 0; i < 3; i++) {
            stream.publish(IdempotentConsumer.MESSAGE_ID, "order-" + i, "order-" + i);
        }
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).build();
        AtomicInteger billed = new AtomicInteger();
        AtomicInteger shipped = new AtomicInteger();
        JetStreamSubscription billing = stream.pull(stream.connection, "billing", Duration.ofSeconds(10));
        JetStreamSubscription shipping = stream.pull(stream.connection, "shipping", Duration.ofSeconds(10));

        for (Message message : billing.fetch(3, Duration.ofSeconds(5))) {
            assertThat(consumer.handle(message, (m, context) -> billed.incrementAndGet())).isEqualTo(Settlement.DONE);
        }
        for (Message message : shipping.fetch(3, Duration.ofSeconds(5))) {
            assertThat(consumer.handle(message, (m, context) -> shipped.incrementAndGet())).isEqualTo(Settlement.DONE);
        }
        IdempotentConsumer named = IdempotentConsumer.builder(calls).scope(stream.name + ".billing").build();
        stream.management().deleteConsumer(stream.name, "shipping");
        JetStreamSubscription again = stream.pull(stream.connection, "shipping", Duration.ofSeconds(10));
        for (Message message : again.fetch(3, Duration.ofSeconds(5))) {
            assertThat(named.handle(message, (m, context) -> shipped.incrementAndGet())).isEqualTo(Settlement.DONE);
        }

        assertThat(billed).hasValue(3);
        assertThat(shipped).as("shipped once, then replayed under billing's scope, named").hasValue(3);
    }

    @Test
    void theDefaultRedeliveryDelayIsTheInFlightWaitAndRetryAfter() {
        try (IdempotentCalls waiting = new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder()
                .inFlightWait(Duration.ofSeconds(2)).retryAfter(Duration.ofSeconds(3)).build())) {
            assertThat(IdempotentConsumer.builder(waiting).build().redeliveryDelay()).isEqualTo(Duration.ofSeconds(5));
        }
    }
}
