package dev.idempotency.core;

import java.time.Duration;
import java.util.Objects;

/**
 * One call the engine made to its store or to a won reservation, for metrics.
 *
 * @param operation the call: {@code reserve}, {@code reserveInTransaction}, {@code releaseIfOwned},
 *                  {@code find}, {@code insertCompleted}, {@code check}, or the reservation's
 *                  {@code complete}, {@code release}, {@code abort}, {@code renew}
 * @param result    how it ended
 * @param duration  from the call until its stage completed
 */
public record StoreCall(String operation, Result result, Duration duration) {

    public StoreCall {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(duration, "duration");
    }

    /** How a store call ended. */
    public enum Result {
        /**
         * A reservation call that won the key. The engine finishes that reservation with exactly
         * one {@code complete}, {@code release} or {@code abort} call (whatever its result), so
         * the won calls less those finishing calls are the executions in flight.
         */
        WON,
        /** Answered; for a reservation call, without winning the key. */
        SUCCESS,
        /** Failed with {@link dev.idempotency.core.store.StorageUnavailableException}: the engine answers 503. */
        UNAVAILABLE,
        /** Failed in any other way. */
        ERROR
    }

    /** Whether this call finished a won reservation. */
    public boolean finishesExecution() {
        return operation.equals("complete") || operation.equals("release") || operation.equals("abort");
    }
}
