package dev.idempotency.kafka;

import dev.idempotency.core.call.CallContext;

/**
 * What a listener does with a record, run at most once per key (see the mode's guarantees). What it
 * throws fails the execution — the key is released — and reaches the container's error handler
 * unchanged, which retries or recovers as it does for any listener failure.
 *
 * @param <X> the checked exception it may throw ({@link RuntimeException} when none)
 */
@FunctionalInterface
public interface RecordHandler<X extends Exception> {

    /**
     * @param context the execution: in the atomic mode with the JDBC store,
     *                {@code context.unwrap(java.sql.Connection.class)} is the transaction the record's
     *                outcome commits in
     */
    void handle(CallContext context) throws X;
}
