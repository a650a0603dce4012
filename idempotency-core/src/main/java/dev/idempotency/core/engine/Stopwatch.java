package dev.idempotency.core.engine;

import java.time.Duration;

/** How long one request has spent in the engine: deciding, then (after a {@code Proceed}) executing. */
public final class Stopwatch {

    private final long started = System.nanoTime();
    private volatile long decided;

    /** The decision is made: the handler runs from here. */
    void decided() {
        decided = System.nanoTime();
    }

    /** From the start to the decision (to now, while still deciding). */
    Duration decisionTime() {
        long end = decided;
        return Duration.ofNanos((end == 0 ? System.nanoTime() : end) - started);
    }

    /** From the decision to now; {@code null} before a decision to proceed. */
    Duration executionTime() {
        long from = decided;
        return from == 0 ? null : Duration.ofNanos(System.nanoTime() - from);
    }
}
