package dev.idempotency.nats;

import dev.idempotency.core.call.Settlement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Workers, each looping over its own pull subscription as an application would: fetch a batch,
 * hand each message to the consumer. Counts the settlements; keeps the first unexpected failure.
 */
final class PullWorkers implements AutoCloseable {

    final Map<Settlement, AtomicInteger> settlements = new ConcurrentHashMap<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    PullWorkers(IdempotentConsumer consumer, MessageAction<?> action, List<JetStreamSubscription> subscriptions) {
        @SuppressWarnings("unchecked")
        MessageAction<Exception> throwing = (MessageAction<Exception>) action;
        for (JetStreamSubscription subscription : subscriptions) {
            Thread worker = new Thread(() -> {
                while (!stopped) {
                    try {
                        for (Message message : subscription.fetch(10, Duration.ofMillis(200))) {
                            Settlement settled = consumer.handle(message, throwing);
                            settlements.computeIfAbsent(settled, s -> new AtomicInteger()).incrementAndGet();
                        }
                    } catch (Throwable e) {
                        if (!stopped) {
                            failure.compareAndSet(null, e);
                        }
                        return;
                    }
                }
            }, "pull-worker-" + threads.size());
            threads.add(worker);
            worker.start();
        }
    }

    int settled(Settlement settlement) {
        AtomicInteger count = settlements.get(settlement);
        return count == null ? 0 : count.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        for (Thread worker : threads) {
            worker.join(5_000);
        }
    }
}
