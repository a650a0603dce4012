package dev.idempotency.core.adapter;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.store.RecordKey;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One idempotent request that the engine let through to its handler. The adapter finishes it
 * with {@link #finish} (the captured response) or {@link #fail} (the handler threw). Until then the
 * key stays reserved (in flight) and, in the reserve mode, its lease is renewed in the background.
 *
 * <p>Finishing is safe to repeat: the first {@code finish}, {@code fail} or {@code abandon} decides; later calls
 * are no-ops — a later {@code finish} returns what the first one returned (after a {@code fail},
 * empty). Every method here is also offered with a {@link CompletionStage} for event-loop
 * adapters; the blocking forms wait for it. None of them throws or completes exceptionally because
 * of storage.
 */
public interface Execution {

    /** The record's namespace and key. */
    RecordKey key();

    /**
     * Stores the response when the replay policy says it reports a success (without its body when
     * it was not captured or is too large: see {@link IdempotencyConfig#maxStoredBodyBytes()}),
     * otherwise releases the key so a retry runs again. Call it only once the response is complete
     * — an asynchronous or streamed response when it has ended — so the key is never free while
     * the handler's work may still run. Outside the atomic mode a failure to persist leaves the
     * response unchanged, and the store call is made again in the background with the same owner
     * token, with backoff, while the lease is renewed (duplicates get 409), until it lands or the
     * lease would end; giving up (the lease ended, or the reservation was lost) releases nothing
     * and is logged once, with only the key's preview. The atomic mode's commit is not retried.
     *
     * @return a reply to send <em>instead</em> of the captured response; empty means "send what
     *         the handler produced". Two cases: in the optimistic mode, when the handler answered
     *         409 because a concurrent twin finished first, the twin's stored response; in the
     *         atomic mode, when the final commit failed and the handler's writes were therefore not
     *         applied, a 503 problem so the client retries
     */
    CompletionStage<Optional<HttpReply>> finishAsync(CapturedResponse response);

    /**
     * The handler failed: nothing is stored and the key is released (in the atomic mode the
     * transaction, with the handler's writes, rolls back).
     */
    CompletionStage<Void> failAsync(Throwable cause);

    /**
     * The framework gave up on the response (an asynchronous request timed out) while the
     * handler's work may still run: nothing is stored and the key is not released — it stays in
     * flight until its lease runs out (renewal stops), so a duplicate gets 409, never a second run
     * alongside the first. In the atomic mode the transaction rolls back, as with {@link #failAsync}.
     */
    CompletionStage<Void> abandonAsync();

    /** {@link #finishAsync}, waiting for it. */
    default Optional<HttpReply> finish(CapturedResponse response) {
        return finishAsync(response).toCompletableFuture().join();
    }

    /** {@link #failAsync}, waiting for it. */
    default void fail(Throwable cause) {
        failAsync(cause).toCompletableFuture().join();
    }

    /**
     * Something the store keeps for the handler, such as the atomic mode's transaction (see the
     * JDBC store's documentation for the types it offers).
     */
    <T> Optional<T> unwrap(Class<T> type);
}
