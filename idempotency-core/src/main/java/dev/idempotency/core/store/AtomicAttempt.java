package dev.idempotency.core.store;

/**
 * What one atomic reservation attempt came to: the primitive a store offers through
 * {@link Store#atomic} (or {@link AsyncStore#atomic}), in a fresh transaction of its own. The rounds around
 * it (ask again, busy, start over, give up) are the engine's.
 *
 * @param <R> the reservation type: {@link Reservation} or {@link AsyncReservation}
 */
public sealed interface AtomicAttempt<R> {

    /**
     * The fingerprint of the in-flight record answered for a holder with another body: it matches
     * no request's fingerprint (not a SHA-256 in hex).
     */
    String ANOTHER_BODY = "(another request body, not yet committed)";

    /** This outcome, a won reservation converted by {@code won} (a face of another kind). */
    default <S> AtomicAttempt<S> map(java.util.function.Function<? super R, ? extends S> won) {
        if (this instanceof Won<R> w) {
            return new Won<>(won.apply(w.reservation()));
        }
        if (this instanceof Lost<R> lost) {
            return new Lost<>(lost.record());
        }
        return this instanceof TimedOut<R> timedOut ? new TimedOut<>(timedOut.holder(), timedOut.lockTimeout())
                : new RolledBack<>();
    }

    /** The caller won: the reservation owns the open transaction. */
    record Won<R>(R reservation) implements AtomicAttempt<R> {
    }

    /** A committed live record holds the key; the transaction is over. */
    record Lost<R>(IdempotencyRecord record) implements AtomicAttempt<R> {
    }

    /**
     * The wait for another transaction's lock ran out; the transaction was rolled back, and
     * {@code holder} is who holds the key as far as the store could tell without waiting (the
     * same body when it could not tell).
     *
     * @param lockTimeout the driver's failure, the cause of a "busy" answer
     */
    record TimedOut<R>(Holder holder, Throwable lockTimeout) implements AtomicAttempt<R> {
    }

    /** The database rolled the transaction back (deadlock, serialization failure): start over. */
    record RolledBack<R>() implements AtomicAttempt<R> {
    }

    /** Who holds the key after a lock wait ran out. */
    enum Holder {
        /** An uncommitted request with the same body. */
        SAME_BODY,
        /** An uncommitted request with another body. */
        OTHER_BODY,
        /**
         * The row shows a completion with the same body that may not be committed yet: never a
         * replay, the caller asks again.
         */
        COMPLETING,
        /** Nobody: the holder ended, or the wait was for another lock (a table lock). */
        NOBODY
    }
}
