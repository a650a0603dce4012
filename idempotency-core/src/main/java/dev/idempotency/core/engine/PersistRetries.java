package dev.idempotency.core.engine;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.RecordKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores one finished handler's response: the store call (a reservation's {@code complete},
 * owner-checked, or the optimistic insert) is made again while it fails — a cut connection, a
 * timeout: its outcome unknown — after a pause doubling from {@value #FIRST_RETRY_MS} ms to
 * {@value #LAST_RETRY_MS} ms. An answer ends it ({@code true}: stored; {@code false}: not, the
 * reservation was lost); so does the lease: no attempt starts where its pause would reach the end
 * of the lease as last confirmed, nor a lease after the first attempt. The first attempt runs on
 * the caller's thread; the pauses are the engine's timer, and the later attempts run on its pool
 * of store-call threads ({@link EngineScheduler#renew}), so neither an event loop nor a request's
 * thread waits for them. The retries of one engine take turns (one at a time), so
 * that an outage costs the store at most one connection more than the requests' own; a retry that
 * finds it taken waits as after a failure, without counting an attempt. Times come from the
 * engine's clock.
 */
final class PersistRetries {

    static final long FIRST_RETRY_MS = 5;
    static final long LAST_RETRY_MS = 500;

    /** How a persist ended. */
    enum Ending {
        /** The store answered {@code true}. */
        STORED,
        /** The store answered {@code false}: ownership was lost (or a twin stored first). */
        REFUSED,
        /** The store call kept failing until the lease would end. */
        LEASE_ENDED
    }

    /** How a persist ended, after how many attempts, and (when it did not answer) the last failure. */
    record Result(Ending ending, int attempts, Throwable failure) {

        /** Logs, once for the request, that its response was not stored because the store kept failing. */
        void logGaveUp(RecordKey key) {
            // The exception's type only: a store's message may quote what it was sent.
            log.warn("idempotency.persist_failed key_preview={}: {} attempt(s) failed, the last with {}; the response "
                    + "was not stored", key.keyPreview(), attempts, failure.getClass().getName());
        }
    }

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private static final PersistRetries ONCE = new PersistRetries(null, null, Clock.systemUTC(), Duration.ZERO,
            () -> Instant.MIN);
    /** A retry that found the turn taken: not an attempt. */
    private static final Throwable NO_TURN = new IllegalStateException("another completion is being retried");

    private final EngineScheduler scheduler;
    private final Semaphore turns;
    private final Clock clock;
    private final Duration lease;
    private final Supplier<Instant> leaseEnd;

    /**
     * @param turns    the engine's turns for retries, shared by all its completions
     * @param leaseEnd the lease's end as last confirmed (the reservation's, or its latest renewal's);
     *                 looked at before every retry
     */
    PersistRetries(EngineScheduler scheduler, Semaphore turns, Clock clock, Duration lease,
                   Supplier<Instant> leaseEnd) {
        this.scheduler = scheduler;
        this.turns = turns;
        this.clock = clock;
        this.lease = lease;
        this.leaseEnd = leaseEnd;
    }

    /** One attempt, never repeated: the atomic mode's commit, which a failure rolls back. */
    static PersistRetries once() {
        return ONCE;
    }

    /**
     * {@code call} until it answers or the lease would end; the stage never completes exceptionally.
     *
     * @param retrying run once, when the first retry is scheduled: what the caller does meanwhile
     */
    CompletionStage<Result> persist(Supplier<CompletionStage<Boolean>> call, Runnable retrying) {
        Attempts attempts = new Attempts(call, clock.instant().plus(lease), retrying);
        attempts.run();
        return attempts.result;
    }

    /** After {@code delay}, on a store-call thread: {@code true}; {@code false} once the engine closed. */
    private CompletionStage<Boolean> pause(Duration delay) {
        CompletableFuture<Boolean> resumed = new CompletableFuture<>();
        scheduler.after(delay).whenComplete((elapsed, failure) -> {
            try {
                scheduler.renew(() -> resumed.complete(true));
            } catch (RuntimeException e) { // the engine is closing
                resumed.complete(false);
            }
        });
        return resumed;
    }

    /** The attempts of one persist; attempts that complete at once loop here rather than nest. */
    private final class Attempts {
        private final Supplier<CompletionStage<Boolean>> call;
        private final Instant bound;
        private final Runnable retrying;
        private final CompletableFuture<Result> result = new CompletableFuture<>();
        private int count;
        private Throwable lastFailure;
        private long backoffMs = FIRST_RETRY_MS;

        Attempts(Supplier<CompletionStage<Boolean>> call, Instant bound, Runnable retrying) {
            this.call = call;
            this.bound = bound;
            this.retrying = retrying;
        }

        void run() {
            while (true) {
                CompletableFuture<Boolean> again = attempt()
                        .handle(this::afterAttempt)
                        .thenCompose(next -> next)
                        .toCompletableFuture();
                if (!again.isDone()) {
                    again.whenComplete((goOn, failure) -> {
                        if (goOn(goOn, failure)) {
                            run();
                        }
                    });
                    return;
                }
                if (!goOn(again.getNow(false), null)) {
                    return;
                }
            }
        }

        /** The request's own attempt; a retry when it has the engine's turn. */
        private CompletionStage<Boolean> attempt() {
            if (count == 0) {
                return Stages.attempt(call);
            }
            if (!turns.tryAcquire()) {
                return CompletableFuture.failedFuture(NO_TURN);
            }
            return Stages.attempt(call).whenComplete((answer, failure) -> turns.release());
        }

        /** The ending, or (after a failure with time left) a pause that answers whether to attempt again. */
        private CompletionStage<Boolean> afterAttempt(Boolean answer, Throwable failure) {
            Throwable cause = failure == null ? null : Stages.unwrap(failure);
            if (cause != NO_TURN) {
                count++;
            }
            if (failure == null) {
                result.complete(new Result(answer ? Ending.STORED : Ending.REFUSED, count, null));
                return CompletableFuture.completedFuture(false);
            }
            if (cause != NO_TURN) {
                lastFailure = cause;
            }
            Duration delay = Duration.ofMillis(backoffMs);
            backoffMs = Math.min(backoffMs * 2, LAST_RETRY_MS);
            Instant end = leaseEnd.get();
            if (!clock.instant().plus(delay).isBefore(end.isBefore(bound) ? end : bound)) {
                result.complete(new Result(Ending.LEASE_ENDED, count, lastFailure));
                return CompletableFuture.completedFuture(false);
            }
            if (count == 1 && cause != NO_TURN) {
                retrying.run();
            }
            return Stages.attempt(() -> pause(delay)).handle((elapsed, closing) -> {
                if (closing != null || !elapsed) { // the engine is closing: the key frees itself at the lease's end
                    result.complete(new Result(Ending.LEASE_ENDED, count, lastFailure));
                    return false;
                }
                return true;
            });
        }

        private boolean goOn(Boolean again, Throwable failure) {
            if (failure != null) { // not expected: every step above is guarded
                result.complete(new Result(Ending.LEASE_ENDED, count, Stages.unwrap(failure)));
                return false;
            }
            return again;
        }
    }
}
