package dev.idempotency.micrometer;

import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.core.store.TransactionalStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** A blocking store whose every call is timed; won reservations are wrapped to time theirs and count them in flight. */
class MeteredStore implements Store {

    private final Store delegate;
    final StoreMeters meters;

    MeteredStore(Store delegate, StoreMeters meters) {
        this.delegate = delegate;
        this.meters = meters;
    }

    /** A {@link Transactional} one when {@code delegate} is transactional, so the atomic mode still sees it. */
    static Store of(Store delegate, StoreMeters meters) {
        return delegate instanceof TransactionalStore transactional
                ? new Transactional(transactional, meters)
                : new MeteredStore(delegate, meters);
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                 Duration ttl) {
        return metered(meters.time("reserve", () -> delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl)));
    }

    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        return meters.time("releaseIfOwned", () -> delegate.releaseIfOwned(key, ownerToken));
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        return meters.time("find", () -> delegate.find(key, now));
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        return meters.time("insertCompleted", () -> delegate.insertCompleted(key, fingerprint, response, now, ttl));
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        return meters.time("purgeExpired", () -> delegate.purgeExpired(now, limit));
    }

    @Override
    public void check() {
        meters.time("check", () -> {
            delegate.check();
            return null;
        });
    }

    @Override
    public boolean expiresRecordsItself() {
        return delegate.expiresRecordsItself();
    }

    @Override
    public String toString() {
        return "Metered(" + delegate + ")";
    }

    final ReserveResult metered(ReserveResult result) {
        if (result instanceof ReserveResult.Acquired acquired) {
            meters.reservationWon();
            return new ReserveResult.Acquired(new MeteredReservation(acquired.reservation(), meters));
        }
        return result;
    }

    /** A transactional store, metered; its reservations keep their transaction behind {@code unwrap}. */
    static final class Transactional extends MeteredStore implements TransactionalStore {
        private final TransactionalStore delegate;

        Transactional(TransactionalStore delegate, StoreMeters meters) {
            super(delegate, meters);
            this.delegate = delegate;
        }

        /** Timed as {@code reserveInTransaction}, each attempt. */
        @Override
        public AtomicAttempt<Reservation> attemptInTransaction(RecordKey key, String fingerprint, String ownerToken,
                                                               Instant now, Duration lease, Duration ttl,
                                                               Duration wait) {
            AtomicAttempt<Reservation> attempt = meters.time("reserveInTransaction",
                    () -> delegate.attemptInTransaction(key, fingerprint, ownerToken, now, lease, ttl, wait));
            if (attempt instanceof AtomicAttempt.Won<Reservation> won) {
                meters.reservationWon();
                return new AtomicAttempt.Won<>(new MeteredReservation(won.reservation(), meters));
            }
            return attempt;
        }
    }
}
