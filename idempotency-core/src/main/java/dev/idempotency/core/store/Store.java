package dev.idempotency.core.store;

import dev.idempotency.core.internal.OwnerTokens;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Durable storage for idempotency records: a handful of atomic primitives, each answering "did
 * I win?". The state machine that strings them together lives once, in
 * {@link dev.idempotency.core.IdempotencyEngine}; a store never decides what a request gets.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>Time is what the caller passes as {@code now} (the engine's {@link java.time.Clock});
 *       a store compares expiry and leases against it, inside its atomic statement.</li>
 *   <li>A record whose {@code expiresAt <= now} counts as absent everywhere — but for one in
 *       flight under a lease that still runs ({@code leaseUntil > now}): a record whose handler
 *       still runs is never absent, purged or taken over. Renewing a lease moves the record's
 *       expiry to at least the lease's end ({@link Reservation#renew}).</li>
 *   <li>A record's time to live counts from the reservation that wrote it: {@link #reserve}
 *       sets {@code expiresAt = now + ttl} once (a renewal moves it only to keep it past the
 *       lease's end) and completing the reservation leaves it alone,
 *       so a completed record is replayed for {@code ttl} less its handler's run time (as
 *       Stripe counts its 24 hours). A take-over of a lapsed lease is a new reservation, a fresh
 *       run of the handler, and counts again from its own {@code now}.
 *       {@link #insertCompleted} (the optimistic mode's only write) counts from its
 *       {@code now}. Keeping the expiry out of the completion lets a database store complete
 *       without touching an indexed column.</li>
 *   <li>{@link #reserve} is atomic across threads, processes and machines sharing the storage:
 *       of any number of concurrent callers for one key exactly one gets
 *       {@link ReserveResult.Acquired}.</li>
 *   <li>An in-flight record whose lease has run out ({@code leaseUntil <= now}) may be taken
 *       over by the next {@code reserve}; the previous owner's handle then fails to complete,
 *       release or renew.</li>
 *   <li>{@link #releaseIfOwned} deletes only an in-flight record that carries the given owner
 *       token, whatever its lease; it never touches a completed record or another owner's.</li>
 *   <li>Storage that is missing (no table) or cannot be reached is reported by throwing
 *       {@link StorageUnavailableException}; any other failure may be any runtime exception.</li>
 * </ul>
 * The suite {@code dev.idempotency.testkit.StoreContractTest} in the test kit checks all of it;
 * a custom store should extend it.
 */
public interface Store {

    /**
     * Creates an in-flight record for {@code key} if none is live (absent, expired, or in flight
     * with a lapsed lease), atomically, and writes {@code ownerToken} into it.
     *
     * @param key         the namespace and client key
     * @param fingerprint hex SHA-256 of the request's media type and canonical body (64 characters)
     * @param ownerToken  the token the won reservation carries (at most 64 ASCII characters, fresh
     *                    for every call). The caller chooses it before the call, so that it knows
     *                    the token even when the answer is lost and can {@link #releaseIfOwned}
     *                    what may have landed; a store writes exactly this one
     * @param now         the current time
     * @param lease       how long the reservation is guaranteed to its owner without renewal
     * @param ttl         how long the record lives, from {@code now}: a won reservation, fresh or
     *                    a take-over, sets its expiry to {@code now + ttl}, and completing it does
     *                    not move that
     * @return the won reservation ({@link ReserveResult#acquired}: the handle over this store's
     *         {@link #complete}, {@link #releaseIfOwned} and {@link #renew} for {@code key} and
     *         {@code ownerToken}), or the live record that is in the way
     */
    ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                          Duration ttl);

    /** {@link #reserve(RecordKey, String, String, Instant, Duration, Duration)} with a fresh random token. */
    default ReserveResult reserve(RecordKey key, String fingerprint, Instant now, Duration lease, Duration ttl) {
        return reserve(key, fingerprint, OwnerTokens.next(), now, lease, ttl);
    }

    /**
     * Stores the response and marks {@code key}'s record completed if it is in flight under
     * {@code ownerToken}, atomically, leaving its expiry where it is (see {@link Reservation#complete}).
     *
     * @return {@code false} when the token no longer owns the record; nothing was stored then
     */
    boolean complete(RecordKey key, String ownerToken, StoredResponse response);

    /**
     * Extends the lease of {@code key}'s in-flight record under {@code ownerToken} to
     * {@code now + lease}, and its expiry to at least the lease's end (see {@link Reservation#renew}).
     *
     * @return {@code false} when the token no longer owns the record
     */
    boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease);

    /**
     * Deletes {@code key}'s record if it is in flight under {@code ownerToken}, atomically; does
     * nothing to a completed record or to one of another token. The engine calls it for a
     * reservation whose outcome it does not know — the {@link #reserve} call failed, so no handler
     * ran under it, but the record may have been written — to free the key as soon as the storage
     * answers again rather than when the lease lapses.
     *
     * @return {@code true} when this call deleted the record
     */
    boolean releaseIfOwned(RecordKey key, String ownerToken);

    /**
     * The unexpired record for {@code key}: completed, or in flight — even one whose lease has
     * lapsed (it is still there until a reservation takes it over). Empty when absent or expired.
     */
    Optional<IdempotencyRecord> find(RecordKey key, Instant now);

    /**
     * Stores a completed record unless a live one exists — the single write of the optimistic
     * mode (look up, run, then insert-if-absent). The record expires at {@code now + ttl}.
     *
     * @return {@code true} when this call stored it
     */
    boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now, Duration ttl);

    /**
     * Deletes at most {@code limit} records that expired before {@code now}, never an in-flight
     * one whose lease has not ended.
     *
     * @return how many went; call again while it returns {@code limit}
     */
    int purgeExpired(Instant now, int limit);

    /** {@code true} when the storage deletes expired records itself, so nothing need run {@link #purgeExpired}. */
    default boolean expiresRecordsItself() {
        return false;
    }

    /**
     * A cheap health check for adapters, health endpoints and start-up: returns when the storage
     * is reachable and provisioned (its table exists), and otherwise throws
     * {@link StorageUnavailableException} with the reason the engine would answer 503 for. The
     * default looks up a record that never exists; a store may do something cheaper.
     */
    default void check() {
        find(RecordKey.HEALTH_PROBE, Instant.now());
    }

    /**
     * The atomic mode's primitive, when this store can hold a reservation inside a transaction of
     * the application's own database (so that the reservation, the handler's writes and the
     * stored response commit together); empty, the default, when it cannot.
     */
    default Optional<Atomic> atomic() {
        return Optional.empty();
    }

    /**
     * One attempt to reserve a key in a new transaction, which a {@link AtomicAttempt.Won}
     * reservation keeps open; every other outcome ends it. The won {@link Reservation} owns the
     * transaction: {@link Reservation#unwrap} hands it to the handler, {@link Reservation#complete}
     * writes the response and commits, {@link Reservation#release} drops the reservation but
     * commits the handler's writes, and {@link Reservation#abort} rolls everything back. The
     * rounds around the attempts (ask again, busy, start over) are the engine's.
     */
    @FunctionalInterface
    interface Atomic {

        /** @param wait how long to wait for another transaction's lock on the key; zero: hardly at all */
        AtomicAttempt<Reservation> attempt(RecordKey key, String fingerprint, String ownerToken, Instant now,
                                           Duration lease, Duration ttl, Duration wait);
    }
}
