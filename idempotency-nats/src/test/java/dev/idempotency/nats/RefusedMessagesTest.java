package dev.idempotency.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.InMemoryStore;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A message reusing a key with another body, and one without a key, are terminated without running;
 * a handler that throws leaves its message to JetStream, which delivers it again, and it runs again.
 * The consumer's ack wait is short, so a message left unacknowledged would come back within the test.
 */
class RefusedMessagesTest {

    private static final Duration ACK_WAIT = Duration.ofSeconds(1);

    private TestStream stream;
    private IdempotentCalls calls;
    private IdempotentConsumer consumer;
    private JetStreamSubscription subscription;
    private Subscription terminations;
    private final AtomicInteger runs = new AtomicInteger();

    @BeforeEach
    void open() throws Exception {
        stream = new TestStream(Duration.ofMinutes(2));
        calls = new IdempotentCalls(new InMemoryStore(), IdempotencyConfig.builder().build());
        consumer = IdempotentConsumer.builder(calls).keyHeader("Order-Id").build();
        subscription = stream.pull(stream.connection, "workers", ACK_WAIT);
        terminations = stream.connection.subscribe(
                "$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED." + stream.name + ".workers");
        stream.connection.flush(Duration.ofSeconds(5));
    }

    @AfterEach
    void close() throws Exception {
        calls.close();
        stream.close();
    }

    private Message next() throws Exception {
        List<Message> messages = subscription.fetch(1, Duration.ofSeconds(5));
        assertThat(messages).hasSize(1);
        return messages.get(0);
    }

    private void count(Message message, Object context) {
        runs.incrementAndGet();
    }

    /** Nothing more is delivered, though the ack wait has passed: nothing was left unsettled. */
    private void nothingComesBack() throws Exception {
        assertThat(subscription.fetch(1, ACK_WAIT.multipliedBy(2))).isEmpty();
        assertThat(stream.info("workers").getNumAckPending()).isZero();
    }

    /** The stream sequence of the next termination advisory. */
    private long terminated() throws Exception {
        Message advisory = terminations.nextMessage(Duration.ofSeconds(5));
        assertThat(advisory).as("a termination advisory").isNotNull();
        String json = new String(advisory.getData(), StandardCharsets.UTF_8);
        return Long.parseLong(json.replaceAll(".*\"stream_seq\":(\\d+).*", "$1"));
    }

    @Test
    void anotherBodyUnderAKeyIsTerminatedWithoutRunning() throws Exception {
        stream.publish("Order-Id", "order-1", "pay 5");
        stream.publish("Order-Id", "order-1", "pay 500");

        assertThat(consumer.handle(next(), this::count)).isEqualTo(Settlement.DONE);
        Message reused = next();
        assertThat(consumer.handle(reused, this::count)).isEqualTo(Settlement.REFUSED);

        assertThat(runs).hasValue(1);
        assertThat(terminated()).isEqualTo(reused.metaData().streamSequence());
        nothingComesBack();
    }

    @Test
    void aMessageWithoutItsKeyHeaderIsTerminatedWithoutRunning() throws Exception {
        stream.publish("Order-Id", null, "pay 5");
        stream.publish("Order-Id", "", "pay 6");

        assertThat(consumer.handle(next(), this::count)).isEqualTo(Settlement.REFUSED);
        assertThat(consumer.handle(next(), this::count)).isEqualTo(Settlement.REFUSED);

        assertThat(runs).hasValue(0);
        assertThat(List.of(terminated(), terminated())).containsExactly(1L, 2L);
        nothingComesBack();
    }

    @Test
    void aKeyTheEngineRefusesIsTerminatedWithoutRunning() throws Exception {
        stream.publish("Order-Id", "k".repeat(256), "pay 5");

        assertThat(consumer.handle(next(), this::count)).isEqualTo(Settlement.REFUSED);

        assertThat(runs).hasValue(0);
        assertThat(terminated()).isEqualTo(1L);
        nothingComesBack();
    }

    @Test
    void aThrowingHandlerLeavesItsMessageToBeDeliveredAgainAndRunsAgain() throws Exception {
        stream.publish("Order-Id", "order-2", "pay 7");
        IOException declined = new IOException("gateway down");

        Message first = next();
        assertThatThrownBy(() -> consumer.handle(first, (message, context) -> {
            runs.incrementAndGet();
            throw declined;
        })).isSameAs(declined);
        Message again = next(); // after the ack wait: the exception settled nothing
        assertThat(again.metaData().deliveredCount()).isEqualTo(2);
        assertThat(consumer.handle(again, this::count)).isEqualTo(Settlement.DONE);

        assertThat(runs).hasValue(2);
        nothingComesBack();
    }

    @Test
    void aDispatchersHandlerThatThrowsLeavesTheMessageToBeDeliveredAgain() throws Exception {
        stream.management().addOrUpdateConsumer(stream.name, stream.consumer("pushed", ACK_WAIT)
                .deliverSubject("deliver." + stream.name).build());
        stream.publish("Order-Id", "order-3", "pay 9");
        List<Long> deliveries = new ArrayList<>();
        Dispatcher dispatcher = stream.connection.createDispatcher();

        stream.connection.jetStream().subscribe(null, dispatcher, consumer.handler((message, context) -> {
            synchronized (deliveries) {
                deliveries.add(message.metaData().deliveredCount());
            }
            if (message.metaData().deliveredCount() == 1) {
                throw new IOException("gateway down");
            }
        }), false, io.nats.client.PushSubscribeOptions.bind(stream.name, "pushed"));

        await().atMost(Duration.ofSeconds(10)).until(() -> stream.info("pushed").getNumAckPending() == 0
                && stream.info("pushed").getNumPending() == 0 && deliveries.size() == 2);
        synchronized (deliveries) {
            assertThat(deliveries).containsExactly(1L, 2L);
        }
    }

    @Test
    void theHandlersCheckedExceptionReachesTheDispatcherWrapped() throws Exception {
        stream.publish("Order-Id", "order-4", "pay 11");
        IOException declined = new IOException("gateway down");

        Message first = next();
        assertThatThrownBy(() -> consumer.handler((message, context) -> {
            throw declined;
        }).onMessage(first)).isInstanceOf(UndeclaredThrowableException.class).hasCause(declined);
        Message again = next();
        consumer.handler(this::count).onMessage(again);

        assertThat(runs).hasValue(1);
        nothingComesBack();
    }

    @Test
    void aCoreNatsMessageIsNoDelivery() throws Exception {
        Subscription plain = stream.connection.subscribe("plain." + stream.name);
        stream.connection.publish("plain." + stream.name, "x".getBytes(StandardCharsets.UTF_8));
        Message message = plain.nextMessage(Duration.ofSeconds(5));

        assertThatThrownBy(() -> consumer.handle(message, this::count)).isInstanceOf(IllegalArgumentException.class);
        assertThat(runs).hasValue(0);
    }
}
