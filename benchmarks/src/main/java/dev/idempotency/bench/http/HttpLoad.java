package dev.idempotency.bench.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * The load generator: a fixed number of {@code POST}s over a fixed number of keep-alive
 * connections, one platform thread each, in one of two schedules.
 *
 * <ul>
 *   <li>{@link #closedLoop}: every connection sends its next request as soon as the previous one
 *       is answered — the service's capacity at that concurrency (requests per second).</li>
 *   <li>{@link #openLoop}: request {@code i} is due at {@code start + i / rate}, whether or not
 *       earlier ones were answered; its latency counts from when it was due, so time spent queued
 *       behind a slow answer is measured instead of silently skipped (no coordinated omission).</li>
 * </ul>
 *
 * Both stop at the request count or at a time limit, whichever comes first.
 */
public final class HttpLoad {

    private final InetSocketAddress address;
    private final String path;
    private final byte[] body;
    private final int connections;
    private final int expectedStatus;

    /**
     * @param expectedStatus the status every answer must have; any other, or an I/O failure,
     *                       counts as an error
     */
    public HttpLoad(InetSocketAddress address, String path, byte[] body, int connections, int expectedStatus) {
        this.address = address;
        this.path = path;
        this.body = body.clone();
        this.connections = connections;
        this.expectedStatus = expectedStatus;
    }

    /** Back-to-back requests on every connection; {@code key(i)} names request {@code i}'s key. */
    public LoadResult closedLoop(int requests, IntFunction<String> key, Duration limit) {
        return run(requests, key, limit, 0);
    }

    /** Requests due at a constant {@code ratePerSecond}, latency measured from when each was due. */
    public LoadResult openLoop(int requests, IntFunction<String> key, double ratePerSecond, Duration limit) {
        if (ratePerSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive");
        }
        return run(requests, key, limit, ratePerSecond);
    }

    private LoadResult run(int requests, IntFunction<String> key, Duration limit, double rate) {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger replayed = new AtomicInteger();
        AtomicLong lastEnd = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        long[] latencies = new long[requests];
        Arrays.fill(latencies, -1);
        double periodNanos = rate > 0 ? 1e9 / rate : 0;
        long start = System.nanoTime() + 1_000_000; // every thread is up before the first request is due
        long deadline = start + limit.toNanos();

        List<Thread> threads = new ArrayList<>(connections);
        for (int c = 0; c < connections; c++) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[body.length + 1024];
                try (HttpConnection connection = new HttpConnection(address)) {
                    for (int i = next.getAndIncrement(); i < requests; i = next.getAndIncrement()) {
                        long due = rate > 0 ? start + (long) (i * periodNanos) : 0;
                        waitUntil(rate > 0 ? due : start);
                        long sent = System.nanoTime();
                        if (sent - deadline > 0) {
                            break;
                        }
                        int length = request(buffer, key.apply(i));
                        try {
                            HttpConnection.Response response = connection.exchange(buffer, length);
                            long end = System.nanoTime();
                            lastEnd.accumulateAndGet(end, Math::max);
                            if (response.status() != expectedStatus) {
                                errors.incrementAndGet();
                                firstError.compareAndSet(null, "status " + response.status());
                                continue;
                            }
                            if (response.replayed()) {
                                replayed.incrementAndGet();
                            }
                            latencies[i] = end - (rate > 0 ? due : sent);
                        } catch (IOException | RuntimeException e) {
                            lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                            errors.incrementAndGet();
                            firstError.compareAndSet(null, e.toString());
                        }
                    }
                }
            }, "load-" + c);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the load was running", e);
            }
        }
        long[] ok = Arrays.stream(latencies).filter(l -> l >= 0).sorted().toArray();
        int attempted = Math.min(next.get(), requests);
        long elapsed = Math.max(1, lastEnd.get() - start);
        return new LoadResult(requests, ok.length, errors.get(), replayed.get(), elapsed, ok, rate,
                firstError.get(), attempted < requests || ok.length + errors.get() < requests);
    }

    private int request(byte[] buffer, String key) {
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + address.getHostString() + ":" + address.getPort()
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                + "\r\nIdempotency-Key: " + key + "\r\n\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(headBytes, 0, buffer, 0, headBytes.length);
        System.arraycopy(body, 0, buffer, headBytes.length, body.length);
        return headBytes.length + body.length;
    }

    private static void waitUntil(long due) {
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
    }
}
