package dev.idempotency.core.store;

import dev.idempotency.core.engine.AtomicRounds;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking face of a {@link TransactionalStore}: a reservation held inside a transaction
 * of the application's own database, which the handler's writes and the stored response share
 * (the engine's atomic mode). A won {@link AsyncReservation} owns the transaction exactly as
 * {@link TransactionalStore} describes.
 */
public interface AsyncTransactionalStore extends AsyncStore {

    /** As {@link TransactionalStore#attemptInTransaction}. */
    CompletionStage<AtomicAttempt<AsyncReservation>> attemptInTransaction(RecordKey key, String fingerprint,
                                                                          String ownerToken, Instant now,
                                                                          Duration lease, Duration ttl, Duration wait);

    /**
     * The atomic mode's reservation, as the engine makes it from {@link #attemptInTransaction}:
     * a holder in flight is answered with an in-flight record (its fingerprint the caller's, or
     * {@link AtomicAttempt#ANOTHER_BODY}); a holder gone or completing is asked once more with
     * what is left of {@code wait}, after which nobody fails with
     * {@link StorageUnavailableException.Reason#BUSY} and a completing holder is in flight; a
     * rollback by the database starts over; a few rounds at most. A store implements {@link #attemptInTransaction} only; a decorator may
     * forward this whole call to the store it wraps.
     */
    default CompletionStage<AsyncReserveResult> reserveInTransaction(RecordKey key, String fingerprint, Instant now,
                                                                     Duration lease, Duration ttl, Duration wait) {
        return AtomicRounds.reserve(this, key, fingerprint, now, lease, ttl, wait);
    }
}
