package dev.idempotency.core.call;

import java.util.Optional;

/** What a running action may reach of its execution. */
public interface CallContext {

    /**
     * Something the store keeps for the action, such as the atomic mode's transaction (the JDBC
     * store's {@code java.sql.Connection}): what {@link dev.idempotency.core.adapter.Execution#unwrap}
     * offers.
     */
    <T> Optional<T> unwrap(Class<T> type);
}
