package dev.idempotency.examples.consumer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.nats.client.Connection;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;

/**
 * Publishes one payment message, as a producer would: to the queue with the id as its
 * {@code message-id} property, or to the subject with the id in the {@value NatsPayments#KEY_HEADER}
 * header. Declares the queue or stream first, like the consumer, so that a message published before
 * the consumer starts waits for it. {@code ./examples/run consumer publish rabbitmq|nats <id> <json>}.
 */
final class PaymentPublisher {

    static final String USAGE = "usage: ./examples/run consumer publish rabbitmq|nats <message-id> '<json body>'"
            + "   e.g. publish rabbitmq pay-1 '{\"amount\":100}'";

    private PaymentPublisher() {
    }

    /**
     * @return what was done, in one line (the id and body not repeated)
     * @throws IllegalArgumentException for a broker that is neither {@code rabbitmq} nor {@code nats}
     */
    static String publish(ConsumerSettings settings, String broker, String id, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        switch (broker) {
            case "rabbitmq" -> {
                try (com.rabbitmq.client.Connection connection = RabbitPayments.connect(settings);
                     Channel channel = connection.createChannel()) {
                    RabbitPayments.declare(channel, settings);
                    channel.confirmSelect();
                    channel.basicPublish("", settings.queue(), new AMQP.BasicProperties.Builder()
                            .messageId(id).contentType("application/json").deliveryMode(2).build(), bytes);
                    channel.waitForConfirmsOrDie(5_000);
                }
                return "Published " + bytes.length + " bytes to RabbitMQ queue " + settings.queue()
                        + " (message-id set) at " + ConsumerSettings.display(settings.rabbitmqUrl());
            }
            case "nats" -> {
                try (Connection connection = NatsPayments.connect(settings)) {
                    NatsPayments.declare(connection, settings);
                    Headers headers = new Headers().add(NatsPayments.KEY_HEADER, id);
                    PublishAck ack = connection.jetStream().publish(NatsMessage.builder().subject(settings.subject())
                            .headers(headers).data(bytes).build());
                    return "Published " + bytes.length + " bytes to NATS subject " + settings.subject()
                            + " (stream " + ack.getStream() + ", sequence " + ack.getSeqno() + ", "
                            + NatsPayments.KEY_HEADER + " set) at " + ConsumerSettings.display(settings.natsUrl());
                }
            }
            default -> throw new IllegalArgumentException(USAGE);
        }
    }
}
