package dev.idempotency.core.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The engine's one daemon timer thread, started on first use, for lease renewals and the
 * asynchronous face's waits for an in-flight duplicate — its tasks only complete stages and hand
 * work on, they never block — and the pool the renewals' store calls (and the background releases
 * of reservations whose outcome is unknown, and the completions asked again after failing) run on,
 * each on a thread of its own, so that one renewal stuck in a slow store never delays another's.
 */
public final class EngineScheduler implements AutoCloseable {

    private ScheduledExecutorService executor;
    private ExecutorService renewals;

    /** A stage completed after {@code delay}, on the timer thread. */
    CompletionStage<Void> after(Duration delay) {
        CompletableFuture<Void> elapsed = new CompletableFuture<>();
        executor().schedule(() -> elapsed.complete(null), delay.toNanos(), TimeUnit.NANOSECONDS);
        return elapsed;
    }

    ScheduledFuture<?> every(Duration period, Runnable task) {
        long millis = Math.max(1, period.toMillis());
        return executor().scheduleAtFixedRate(task, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Runs a renewal's store call off the timer thread; threads are made as needed and end when idle. */
    synchronized void renew(Runnable call) {
        if (renewals == null) {
            renewals = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "idempotency-lease-renewal");
                t.setDaemon(true);
                return t;
            });
        }
        renewals.execute(call);
    }

    private synchronized ScheduledExecutorService executor() {
        if (executor == null) {
            ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "idempotency-scheduler");
                t.setDaemon(true);
                return t;
            });
            // Most handlers finish long before their first renewal: drop cancelled tasks at once.
            pool.setRemoveOnCancelPolicy(true);
            executor = pool;
        }
        return executor;
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
        if (renewals != null) {
            renewals.shutdownNow();
        }
    }
}
