package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * The answer of {@link AsyncStore#reserve}: either this caller won the key, or somebody holds it
 * and this is what they hold.
 */
public sealed interface AsyncReserveResult {

    /** The caller won: it owns the reservation and must complete or release it. */
    record Acquired(AsyncReservation reservation) implements AsyncReserveResult {
    }

    /** As {@link ReserveResult#acquired}: the handle over {@code store}'s primitives. */
    static AsyncReserveResult acquired(AsyncStore store, RecordKey key, String ownerToken) {
        return new Acquired(new AbstractAsyncReservation(key, ownerToken) {
            @Override
            protected CompletionStage<Boolean> doComplete(StoredResponse response) {
                return store.complete(key, ownerToken, response);
            }

            @Override
            protected CompletionStage<Boolean> doRelease() {
                return store.releaseIfOwned(key, ownerToken);
            }

            @Override
            protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
                return store.renew(key, ownerToken, now, lease);
            }
        });
    }

    /** The key is taken by a live record (in flight or completed); the caller did not win. */
    record Existing(IdempotencyRecord record) implements AsyncReserveResult {
    }
}
