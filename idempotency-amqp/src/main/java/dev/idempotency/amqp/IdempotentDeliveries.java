package dev.idempotency.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.idempotency.amqp.internal.MessageCalls;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCall;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.Store;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Idempotent handling of RabbitMQ deliveries on a channel with manual acknowledgement: a delivery's
 * key is its {@code message-id} property (or a header the application names), its body the call's
 * input, and its {@link Settlement} the acknowledgement:
 * <ul>
 *   <li>{@code DONE} (ran now, or a duplicate of one that ran): {@code basicAck};
 *   <li>{@code LATER} (a duplicate still running, or the store unavailable): {@code basicReject} with
 *       requeue, after the {@linkplain Builder#requeueDelay requeue delay};
 *   <li>{@code REFUSED} (its key was first used with another body; or it has no key, or one the engine
 *       refuses, or a body over {@code maxRequestBodyBytes}): {@code basicReject} without requeue, so
 *       the queue's dead-letter exchange, if any, receives it. Such a message never runs.
 * </ul>
 * A handler that throws releases the key and leaves the delivery unacknowledged, to the client's usual
 * failure handling.
 *
 * <p>Thread-safe; {@link #close()} it on shutdown (its engine owns a timer thread).
 */
public final class IdempotentDeliveries implements AutoCloseable {

    private final MessageCalls calls;
    private final String scope;

    private IdempotentDeliveries(Builder builder) {
        this.calls = MessageCalls.over(builder.store, builder.config, builder.keyHeader, builder.requeueDelay);
        this.scope = builder.scope;
    }

    /**
     * @param scope the scope its keys are filed under, such as the queue's name: 1 to 100 letters,
     *              digits and {@code - . _ ~}
     * @throws IllegalArgumentException when the scope is not such a name
     */
    public static Builder builder(Store store, IdempotencyConfig config, String scope) {
        return new Builder(store, config, scope);
    }

    /**
     * Runs {@code handler} unless a delivery with this key ran or runs, and acknowledges, requeues or
     * rejects the delivery on {@code channel} (the one it came on) from the outcome. On the calling
     * thread; a {@code LATER} first waits the requeue delay.
     *
     * @return what was done with the delivery
     * @throws IOException when the channel cannot take the acknowledgement
     * @throws Exception   what the handler threw: the delivery is then not acknowledged
     */
    public Settlement handle(Channel channel, Delivery delivery, DeliveryHandler handler) throws Exception {
        Objects.requireNonNull(handler, "handler");
        Settlement settlement = calls.settle(scope, keyOf(delivery.getProperties()), delivery.getBody(),
                context -> handler.handle(delivery, context));
        long tag = delivery.getEnvelope().getDeliveryTag();
        switch (settlement) {
            case DONE -> channel.basicAck(tag, false);
            case LATER -> channel.basicReject(tag, true);
            case REFUSED -> channel.basicReject(tag, false);
        }
        return settlement;
    }

    /**
     * A consumer of {@code channel} that {@link #handle handles} each delivery; start it with
     * {@code channel.basicConsume(queue, false, consumer)} (manual acknowledgement). A handler's
     * exception leaves {@code handleDelivery} (a checked one wrapped in an
     * {@link IllegalStateException}) for the connection's {@code ExceptionHandler}: the client's
     * default one closes the channel, and the broker requeues what it had not acknowledged.
     */
    public Consumer consumer(Channel channel, DeliveryHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                                       byte[] body) throws IOException {
                try {
                    handle(getChannel(), new Delivery(envelope, properties, body), handler);
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("The delivery's handler failed", e);
                }
            }
        };
    }

    private String keyOf(AMQP.BasicProperties properties) {
        if (calls.keyHeader() == null) {
            return properties.getMessageId();
        }
        Map<String, Object> headers = properties.getHeaders();
        return headers == null ? null : MessageCalls.keyOf(headers.get(calls.keyHeader()));
    }

    /** Stops the engine's timer thread. */
    @Override
    public void close() {
        calls.close();
    }

    /** Options of {@link IdempotentDeliveries}. */
    public static final class Builder {

        private final Store store;
        private final IdempotencyConfig config;
        private final String scope;
        private String keyHeader;
        private Duration requeueDelay = Duration.ofSeconds(1);

        private Builder(Store store, IdempotencyConfig config, String scope) {
            this.store = Objects.requireNonNull(store, "store");
            this.config = Objects.requireNonNull(config, "config");
            this.scope = IdempotentCall.of(scope, "-", null).scope(); // checks the name now
        }

        /** Reads the key from this header instead of the {@code message-id} property. */
        public Builder keyHeader(String name) {
            this.keyHeader = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * How long the consumer's thread waits before requeueing a {@code LATER} delivery, default one
         * second; zero requeues at once. RabbitMQ redelivers a requeued message straight away, so without
         * it a duplicate whose first copy still runs, or every message during a store outage, would
         * circle between the broker and the consumers as fast as they can.
         */
        public Builder requeueDelay(Duration delay) {
            this.requeueDelay = Objects.requireNonNull(delay, "delay");
            return this;
        }

        /** @throws IllegalArgumentException when the delay is negative, or the mode needs what the store cannot do */
        public IdempotentDeliveries build() {
            return new IdempotentDeliveries(this);
        }
    }
}
