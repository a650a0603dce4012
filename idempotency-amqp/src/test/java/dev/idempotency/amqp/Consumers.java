package dev.idempotency.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.idempotency.core.call.Settlement;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Consumers on one queue, each on its own channel, handling through {@link IdempotentDeliveries#handle}
 * and recording what became of every delivery. A handler's failure is the application's to settle:
 * here, requeued.
 */
final class Consumers {

    /** One delivery's fate. */
    record Settled(String body, boolean redelivered, Settlement settlement) {
    }

    final List<Settled> settled = new CopyOnWriteArrayList<>();
    final AtomicInteger failures = new AtomicInteger();
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    void start(RabbitQueue queue, int consumers, int prefetch, IdempotentDeliveries deliveries,
               DeliveryHandler handler) throws Exception {
        for (int i = 0; i < consumers; i++) {
            Channel channel = queue.channel(prefetch);
            channel.basicConsume(queue.name, false, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                        throws IOException {
                    Delivery delivery = new Delivery(envelope, properties, body);
                    try {
                        Settlement settlement = deliveries.handle(getChannel(), delivery, handler);
                        settled.add(new Settled(new String(body), envelope.isRedeliver(), settlement));
                    } catch (Exception e) {
                        failures.incrementAndGet();
                        getChannel().basicReject(envelope.getDeliveryTag(), true);
                    }
                }
            });
        }
    }

    /** Counts a run of the message with this body. */
    void ran(Delivery delivery) {
        runs.computeIfAbsent(new String(delivery.getBody()), b -> new AtomicInteger()).incrementAndGet();
    }

    long count(Settlement settlement) {
        return settled.stream().filter(s -> s.settlement() == settlement).count();
    }

    int totalRuns() {
        return runs.values().stream().mapToInt(AtomicInteger::get).sum();
    }
}
