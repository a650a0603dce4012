package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A won reservation: the right, guarded by an owner token and a lease, to run the handler for
 * one key and then either store its response or give the key back.
 *
 * <p>A handle is finished exactly once — by {@link #complete}, {@link #release} or
 * {@link #abort}; a second finish throws {@link IllegalStateException}
 * ({@link AbstractReservation} enforces it). A {@link #complete} that throws did not finish it:
 * its outcome is unknown, and outside the atomic mode the engine completes it again with the same
 * owner token. {@link #renew} may be called any number of times before the handle is finished. A
 * store that runs the reservation inside a database transaction (the atomic mode)
 * keeps the transaction here and exposes it through {@link #unwrap}.
 */
public interface Reservation {

    /** The reserved namespace and key. */
    RecordKey key();

    /** The owner token written with the reservation: only its holder may finish it. */
    String ownerToken();

    /**
     * Stores the response and marks the record completed, if this handle still owns it. The
     * record keeps the expiry it has (its reservation's {@code now + ttl}, or the end of the last
     * renewed lease when that is later): completing does not extend the record's life. A record
     * whose handler outlived that expiry is stored already expired, so it counts as absent at
     * once and is purged, never revived. After it threw it may be called again with the same
     * response: the owner check makes that safe (a first call that landed after all makes the
     * second answer {@code false}).
     *
     * @return {@code false} when ownership was lost (the lease lapsed and another request took
     *         the key over); nothing was stored then
     */
    boolean complete(StoredResponse response);

    /**
     * Deletes the in-flight record if this handle still owns it, so a retry executes again. In
     * the atomic mode the handler's own writes commit; only the reservation disappears.
     *
     * @return {@code false} when ownership was already lost
     */
    boolean release();

    /**
     * Gives up after the handler failed. For a plain store the same as {@link #release()}; in
     * the atomic mode the whole transaction, the handler's writes included, rolls back.
     */
    default void abort() {
        release();
    }

    /**
     * Extends the lease to {@code now + lease} if this handle still owns the record, and the
     * record's expiry to at least the lease's end: a renewed reservation is neither purged nor
     * taken over while its lease runs. (A store whose transaction holds the reservation, the
     * atomic mode's, may do no I/O: its uncommitted row cannot be purged or taken over anyway.)
     *
     * @return {@code false} when ownership was lost
     */
    boolean renew(Instant now, Duration lease);

    /**
     * Something the store keeps for the handler, such as the transaction of the atomic mode.
     *
     * @return the object of that type, or empty when this store has none
     */
    default <T> Optional<T> unwrap(Class<T> type) {
        return Optional.empty();
    }
}
