package dev.idempotency.examples.reliability;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded concurrent load on one example service: a few client threads each sending
 * {@code POST /orders} with a fresh key, one after another, until {@link #stop()}, a request
 * budget or a time limit ends it. Every answer is kept with the phase it was sent in.
 *
 * <p>After a {@code 503} a client waits {@value #PAUSE_AFTER_503_MS} ms before its next request:
 * a service that refuses in a few milliseconds (the Vert.x example's reactive pool, with the
 * database's port closed) would otherwise spend the whole request budget inside the outage, in a
 * retry loop no real client runs, and leave none for the recovery the tests check.
 */
final class Load implements AutoCloseable {

    /** One request of the load: when it was sent (which phase) and what came back. */
    record Sent(String phase, Answer answer) {
    }

    static final long PAUSE_AFTER_503_MS = 25;

    private final List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> clients = new ArrayList<>();
    private final AtomicInteger budget;
    private final long deadline;
    private volatile String phase = "before";
    private volatile boolean stopped;

    /**
     * @param port       the service
     * @param path       e.g. {@code /orders?delayMs=50}
     * @param threads    concurrent client threads
     * @param maxRequests a hard limit on requests, over all clients
     * @param maxTime    a hard limit on the load's duration
     * @param timeout    how long one request may take before it counts as hung
     */
    Load(HttpClient http, int port, String path, int threads, int maxRequests, Duration maxTime, Duration timeout) {
        this.budget = new AtomicInteger(maxRequests);
        this.deadline = System.nanoTime() + maxTime.toNanos();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                while (!stopped && System.nanoTime() < deadline && budget.getAndDecrement() > 0) {
                    String at = phase;
                    Answer answer = Answer.post(http, port, path, "load-" + UUID.randomUUID(), Answer.ORDER, timeout);
                    sent.add(new Sent(at, answer));
                    if (answer.status() == 503) {
                        try {
                            Thread.sleep(PAUSE_AFTER_503_MS);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            }, "load-client-" + i);
            t.setDaemon(true);
            clients.add(t);
        }
        clients.forEach(Thread::start);
    }

    /** Labels the requests sent from now on. */
    void phase(String phase) {
        this.phase = phase;
    }

    /** The answers so far. */
    List<Sent> sent() {
        synchronized (sent) {
            return new ArrayList<>(sent);
        }
    }

    /** The answers so far of requests sent in {@code phase}. */
    List<Answer> answers(String phase) {
        return sent().stream().filter(s -> s.phase().equals(phase)).map(Sent::answer).toList();
    }

    /** Stops sending and waits for the requests in flight. */
    void stop() throws InterruptedException {
        stopped = true;
        for (Thread t : clients) {
            t.join(Duration.ofSeconds(30).toMillis());
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
