package dev.idempotency.core.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How a duplicate waits before it looks at an in-flight record again: the blocking face sleeps
 * its own thread; the asynchronous face asks the engine's timer and holds no thread.
 */
@FunctionalInterface
public interface Pause {

    /** A stage that completes with {@code true} after {@code delay}, or {@code false} if the wait was cut short. */
    CompletionStage<Boolean> after(Duration delay);

    /** Sleeps the calling thread; an interrupt ends the wait (and keeps the thread's interrupt flag). */
    Pause SLEEP = delay -> {
        try {
            Thread.sleep(Math.max(1, delay.toMillis()));
            return CompletableFuture.completedFuture(true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.completedFuture(false);
        }
    };

    static Pause on(EngineScheduler scheduler) {
        return delay -> scheduler.after(delay).thenApply(elapsed -> true);
    }
}
