package dev.idempotency.core;

import dev.idempotency.core.store.RecordKey;
import java.util.Optional;

/**
 * One idempotent request that the engine let through to its handler. The adapter finishes it
 * exactly once: {@link #finish} with the captured response, or {@link #fail} when the handler
 * threw. Until then the key stays reserved (in flight) and its lease is renewed in the background.
 */
public interface Execution {

    /** The record's namespace and key. */
    RecordKey key();

    /**
     * Stores the response when the replay policy allows it, otherwise releases the key so a retry
     * runs again. Never throws because of storage: a failure to persist is logged (with only the
     * key's first eight characters) and, outside the atomic mode, the response still goes out
     * unchanged.
     *
     * @return a reply to send <em>instead</em> of the captured response; empty means "send what
     *         the handler produced". Two cases: in the optimistic mode, when the handler answered
     *         409 because a concurrent twin finished first, the twin's stored response; in the
     *         atomic mode, when the final commit failed and the handler's writes were therefore not
     *         applied, a 503 problem so the client retries
     */
    Optional<HttpReply> finish(CapturedResponse response);

    /**
     * The handler failed: nothing is stored and the key is released (in the atomic mode the
     * transaction, with the handler's writes, rolls back). Never throws.
     */
    void fail(Throwable cause);

    /**
     * Something the store keeps for the handler, such as the atomic mode's transaction (see the
     * JDBC store's documentation for the types it offers).
     */
    <T> Optional<T> unwrap(Class<T> type);
}
