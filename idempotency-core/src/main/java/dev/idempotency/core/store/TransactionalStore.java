package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;

/**
 * A store that can hold a reservation inside a transaction of the application's own database, so
 * that the reservation, the handler's writes and the stored response commit together (the
 * engine's atomic mode).
 *
 * <p>The returned {@link Reservation} owns the transaction: {@link Reservation#unwrap} hands it
 * to the handler, {@link Reservation#complete} writes the response and commits,
 * {@link Reservation#release} drops the reservation but commits the handler's writes, and
 * {@link Reservation#abort} rolls everything back. A concurrent duplicate either waits for the
 * owning transaction (bounded by {@code wait}) and then sees its outcome, or is answered with
 * the in-flight record at once when {@code wait} is zero.
 */
public interface TransactionalStore extends Store {

    /**
     * Like {@link #reserve}, but opens a transaction that the acquired reservation keeps open.
     *
     * @param wait how long to wait for a concurrent transaction holding the same key
     */
    ReserveResult reserveInTransaction(RecordKey key, String fingerprint, Instant now, Duration lease,
                                       Duration ttl, Duration wait);
}
