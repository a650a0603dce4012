package dev.idempotency.examples.consumer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A queue and a stream of a test's own on the local RabbitMQ and NATS ({@code RABBITMQ_URL},
 * {@code NATS_URL} when set), named with a random suffix through the consumer's variables, and
 * connections to both; {@link #close()} deletes the queues and the stream.
 */
final class TestBrokers implements AutoCloseable {

    /** The environment: the process's, with the random names. */
    final Map<String, String> env = new HashMap<>(System.getenv());
    final ConsumerSettings settings;
    private final com.rabbitmq.client.Connection rabbitmq;
    final Channel channel;
    final Connection nats;

    TestBrokers() throws Exception {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        env.put("PAYMENTS_QUEUE", "payments-" + suffix);
        env.put("PAYMENTS_STREAM", "PAYMENTS_" + suffix);
        env.put("PAYMENTS_SUBJECT", "payments." + suffix);
        settings = ConsumerSettings.from(env);
        rabbitmq = RabbitPayments.connect(settings);
        channel = rabbitmq.createChannel();
        nats = NatsPayments.connect(settings);
    }

    /** Publishes on the test's connection (declare the queue first: the consumer's start does). */
    void publishRabbitmq(String id, String body) throws Exception {
        channel.basicPublish("", settings.queue(), new AMQP.BasicProperties.Builder().messageId(id).build(),
                body.getBytes(StandardCharsets.UTF_8));
    }

    void publishNats(String id, String body) throws Exception {
        nats.jetStream().publish(NatsMessage.builder().subject(settings.subject())
                .headers(new Headers().add(NatsPayments.KEY_HEADER, id))
                .data(body.getBytes(StandardCharsets.UTF_8)).build());
    }

    long ready(String queue) throws Exception {
        return channel.queueDeclarePassive(queue).getMessageCount();
    }

    ConsumerInfo natsConsumer() throws Exception {
        return nats.jetStreamManagement().getConsumerInfo(settings.stream(), NatsPayments.CONSUMER);
    }

    @Override
    public void close() throws Exception {
        try {
            channel.queueDelete(settings.queue());
            channel.queueDelete(settings.deadLetterQueue());
            try {
                nats.jetStreamManagement().deleteStream(settings.stream());
            } catch (JetStreamApiException e) {
                if (e.getErrorCode() != 404) { // a test that never started the consumer made none
                    throw e;
                }
            }
        } finally {
            rabbitmq.close();
            nats.close();
        }
    }
}
