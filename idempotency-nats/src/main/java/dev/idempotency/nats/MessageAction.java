package dev.idempotency.nats;

import dev.idempotency.core.call.CallContext;
import io.nats.client.Message;

/**
 * What a consumer does with a message, run at most once per key while its record lives (see the
 * mode's guarantees). It must not acknowledge the message: {@link IdempotentConsumer} does, from the
 * outcome; it may call {@link Message#inProgress()} during long work. What it throws fails the
 * execution — the key is released — and reaches the caller unchanged, the message unacknowledged.
 *
 * @param <X> the checked exception it may throw ({@link RuntimeException} when none)
 */
@FunctionalInterface
public interface MessageAction<X extends Exception> {

    /**
     * @param context the execution's, such as the atomic mode's transaction
     *                ({@code context.unwrap(java.sql.Connection.class)} on the JDBC store)
     */
    void handle(Message message, CallContext context) throws X;
}
