package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;

/**
 * The answer of {@link Store#reserve}: either this caller won the key, or somebody holds it and
 * this is what they hold.
 */
public sealed interface ReserveResult {

    /** The caller won: it owns the reservation and must complete or release it. */
    record Acquired(Reservation reservation) implements ReserveResult {
    }

    /**
     * A won plain reservation: the handle, finished once, over {@code store}'s
     * {@link Store#complete}, {@link Store#releaseIfOwned} and {@link Store#renew}.
     */
    static ReserveResult acquired(Store store, RecordKey key, String ownerToken) {
        return new Acquired(new AbstractReservation(key, ownerToken) {
            @Override
            protected boolean doComplete(StoredResponse response) {
                return store.complete(key, ownerToken, response);
            }

            @Override
            protected boolean doRelease() {
                return store.releaseIfOwned(key, ownerToken);
            }

            @Override
            protected boolean doRenew(Instant now, Duration lease) {
                return store.renew(key, ownerToken, now, lease);
            }
        });
    }

    /** The key is taken by a live record (in flight or completed); the caller did not win. */
    record Existing(IdempotencyRecord record) implements ReserveResult {
    }
}
