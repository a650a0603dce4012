package dev.idempotency.examples.consumer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.idempotency.amqp.IdempotentDeliveries;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.Store;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Payment;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Payments from a RabbitMQ queue through {@link IdempotentDeliveries}: the key is the message's
 * {@code message-id} property, the scope the queue's name. The queue (durable) and its dead-letter
 * queue {@code <queue>.dead} are declared if missing; what is rejected without requeue lands there.
 */
final class RabbitPayments implements AutoCloseable {

    private final Connection connection;
    private final IdempotentDeliveries deliveries;

    private RabbitPayments(Connection connection, IdempotentDeliveries deliveries) {
        this.connection = connection;
        this.deliveries = deliveries;
    }

    static Connection connect(ConsumerSettings settings) throws IOException, TimeoutException {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(settings.rabbitmqUrl());
        } catch (Exception e) {
            throw new IllegalArgumentException("RABBITMQ_URL is not an AMQP URL", e);
        }
        try {
            return factory.newConnection("payments-example");
        } catch (IOException e) {
            throw new UnreachableBroker("RabbitMQ", settings.rabbitmqUrl(), "RABBITMQ_URL", e);
        }
    }

    /** Declares the queue, dead-lettering into {@code <queue>.dead}, and that queue. */
    static void declare(Channel channel, ConsumerSettings settings) throws IOException {
        channel.queueDeclare(settings.deadLetterQueue(), true, false, false, null);
        channel.queueDeclare(settings.queue(), true, false, false, Map.of(
                "x-dead-letter-exchange", "", "x-dead-letter-routing-key", settings.deadLetterQueue()));
    }

    static RabbitPayments start(Store store, IdempotencyConfig config, ConsumerSettings settings,
                                PaymentMessages payments) throws IOException, TimeoutException {
        Connection connection = connect(settings);
        IdempotentDeliveries deliveries = null;
        try {
            deliveries = IdempotentDeliveries.builder(store, config, settings.queue()).build();
            Channel channel = connection.createChannel();
            declare(channel, settings);
            channel.basicQos(10);
            channel.basicConsume(settings.queue(), false,
                    consumer(channel, deliveries, "rabbitmq " + settings.queue(), payments));
            return new RabbitPayments(connection, deliveries);
        } catch (IOException | RuntimeException e) {
            if (deliveries != null) {
                deliveries.close();
            }
            connection.close();
            throw e;
        }
    }

    private static DefaultConsumer consumer(Channel channel, IdempotentDeliveries deliveries, String source,
                                            PaymentMessages payments) {
        return new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                                       byte[] body) throws IOException {
                String key = properties.getMessageId();
                Optional<NewPayment> payment = payments.read(source, key, body);
                if (payment.isEmpty()) {
                    getChannel().basicReject(envelope.getDeliveryTag(), false);
                    return;
                }
                AtomicReference<Payment> recorded = new AtomicReference<>();
                Settlement settlement;
                try {
                    settlement = deliveries.handle(getChannel(), new Delivery(envelope, properties, body),
                            (delivery, context) -> recorded.set(payments.record(payment.get(), context)));
                } catch (IOException e) {
                    throw e;
                } catch (Exception e) {
                    // The key was released: requeued, the message runs again.
                    payments.report(source, key, "failed (" + e.getClass().getSimpleName() + "): requeued");
                    getChannel().basicReject(envelope.getDeliveryTag(), true);
                    return;
                }
                switch (settlement) {
                    case DONE -> {
                        if (recorded.get() != null) {
                            payments.recorded(source, key, recorded.get());
                        } else {
                            payments.report(source, key, "is a duplicate: acknowledged without running");
                        }
                    }
                    case LATER -> payments.report(source, key,
                            "is in flight elsewhere or the store is unavailable: requeued");
                    case REFUSED -> payments.report(source, key,
                            "reuses an id with another body, or has none: rejected without running (to the dead-letter queue)");
                }
            }
        };
    }

    @Override
    public void close() throws IOException {
        try {
            connection.close();
        } finally {
            deliveries.close();
        }
    }
}
