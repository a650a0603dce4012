package dev.idempotency.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A throwaway queue on the local RabbitMQ (127.0.0.1:5672, guest/guest; {@code IDEMPOTENCY_TEST_RABBIT_HOST}
 * overrides the host) with a dead-letter queue of its own; both deleted on {@link #close()}.
 */
public final class RabbitQueue implements AutoCloseable {

    private static final String HOST = System.getenv().getOrDefault("IDEMPOTENCY_TEST_RABBIT_HOST", "127.0.0.1");

    public final String name;
    public final String deadLetters;
    private final ExecutorService dispatch = Executors.newFixedThreadPool(8);
    private final Connection connection;
    private final Channel admin;

    public RabbitQueue(String prefix) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        name = prefix + "-" + suffix;
        deadLetters = name + ".dead";
        connection = factory().newConnection(dispatch);
        admin = connection.createChannel();
        admin.queueDeclare(deadLetters, false, false, false, null);
        admin.queueDeclare(name, false, false, false,
                Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", deadLetters));
    }

    public static ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(HOST);
        factory.setPort(5672);
        factory.setUsername("guest");
        factory.setPassword("guest");
        return factory;
    }

    /** A new channel on the queue's connection, taking {@code prefetch} unacknowledged deliveries. */
    public Channel channel(int prefetch) throws Exception {
        Channel channel = connection.createChannel();
        channel.basicQos(prefetch);
        return channel;
    }

    public void publish(String messageId, String body) throws Exception {
        publish(new AMQP.BasicProperties.Builder().messageId(messageId).build(), body);
    }

    public void publish(AMQP.BasicProperties properties, String body) throws Exception {
        admin.basicPublish("", name, properties, body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Publishes {@code copies} copies of {@code distinct} messages in a shuffled order: message {@code i}
     * has the id {@code <idPrefix>-i} and the body {@code body-ii} (two digits).
     *
     * @return the distinct bodies, in order
     */
    public List<String> publishCopies(String idPrefix, int distinct, int copies) throws Exception {
        List<Integer> order = new ArrayList<>();
        for (int copy = 0; copy < copies; copy++) {
            for (int i = 0; i < distinct; i++) {
                order.add(i);
            }
        }
        Collections.shuffle(order);
        for (int i : order) {
            publish(idPrefix + "-" + i, body(i));
        }
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < distinct; i++) {
            bodies.add(body(i));
        }
        return bodies;
    }

    private static String body(int i) {
        return String.format("body-%02d", i);
    }

    /** Messages ready in the queue (not those delivered and unacknowledged). */
    public long ready() throws Exception {
        return admin.messageCount(name);
    }

    /** Takes every dead-lettered message's body. */
    public List<String> takeDeadLetters() throws Exception {
        List<String> bodies = new ArrayList<>();
        for (GetResponse got; (got = admin.basicGet(deadLetters, true)) != null; ) {
            bodies.add(new String(got.getBody(), StandardCharsets.UTF_8));
        }
        return bodies;
    }

    @Override
    public void close() throws Exception {
        try {
            admin.queueDelete(name);
            admin.queueDelete(deadLetters);
            connection.close();
        } finally {
            dispatch.shutdownNow();
        }
    }
}
