package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking face of a {@link TransactionalStore}: a reservation held inside a transaction
 * of the application's own database, which the handler's writes and the stored response share
 * (the engine's atomic mode). The acquired {@link AsyncReservation} owns the transaction exactly as
 * {@link TransactionalStore} describes.
 */
public interface AsyncTransactionalStore extends AsyncStore {

    /** As {@link TransactionalStore#reserveInTransaction}. */
    CompletionStage<AsyncReserveResult> reserveInTransaction(RecordKey key, String fingerprint, Instant now,
                                                             Duration lease, Duration ttl, Duration wait);
}
