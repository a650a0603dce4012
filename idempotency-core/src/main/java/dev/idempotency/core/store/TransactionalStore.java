package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;

/**
 * A store that can hold a reservation inside a transaction of the application's own database, so
 * that the reservation, the handler's writes and the stored response commit together (the
 * engine's atomic mode).
 *
 * <p>The won {@link Reservation} owns the transaction: {@link Reservation#unwrap} hands it to the
 * handler, {@link Reservation#complete} writes the response and commits,
 * {@link Reservation#release} drops the reservation but commits the handler's writes, and
 * {@link Reservation#abort} rolls everything back. A concurrent duplicate waits for the owning
 * transaction's lock; the engine runs the attempts and answers from their outcomes
 * ({@link AsyncTransactionalStore#reserveInTransaction}).
 */
public interface TransactionalStore extends Store {

    /**
     * One attempt to reserve {@code key} in a new transaction, which a {@link AtomicAttempt.Won}
     * reservation keeps open; every other outcome ends it.
     *
     * @param wait how long to wait for another transaction's lock on the key; zero: hardly at all
     */
    AtomicAttempt<Reservation> attemptInTransaction(RecordKey key, String fingerprint, String ownerToken,
                                                    Instant now, Duration lease, Duration ttl, Duration wait);
}
