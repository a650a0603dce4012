package dev.idempotency.micrometer;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.AsyncTransactionalStore;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** {@link MeteredStore} for the asynchronous face: each call is timed until its stage completes. */
class MeteredAsyncStore implements AsyncStore {

    private final AsyncStore delegate;
    final StoreMeters meters;

    MeteredAsyncStore(AsyncStore delegate, StoreMeters meters) {
        this.delegate = delegate;
        this.meters = meters;
    }

    /** A {@link Transactional} one when {@code delegate} is transactional, so the atomic mode still sees it. */
    static AsyncStore of(AsyncStore delegate, StoreMeters meters) {
        return delegate instanceof AsyncTransactionalStore transactional
                ? new Transactional(transactional, meters)
                : new MeteredAsyncStore(delegate, meters);
    }

    @Override
    public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                       Instant now, Duration lease, Duration ttl) {
        return meters.timeAsync("reserve", () -> delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl))
                .thenApply(this::metered);
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
        return meters.timeAsync("releaseIfOwned", () -> delegate.releaseIfOwned(key, ownerToken));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
        return meters.timeAsync("find", () -> delegate.find(key, now));
    }

    @Override
    public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                    Instant now, Duration ttl) {
        return meters.timeAsync("insertCompleted",
                () -> delegate.insertCompleted(key, fingerprint, response, now, ttl));
    }

    @Override
    public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
        return meters.timeAsync("purgeExpired", () -> delegate.purgeExpired(now, limit));
    }

    @Override
    public CompletionStage<Void> check() {
        return meters.timeAsync("check", delegate::check);
    }

    @Override
    public boolean expiresRecordsItself() {
        return delegate.expiresRecordsItself();
    }

    @Override
    public String toString() {
        return "Metered(" + delegate + ")";
    }

    final AsyncReserveResult metered(AsyncReserveResult result) {
        if (result instanceof AsyncReserveResult.Acquired acquired) {
            meters.reservationWon();
            return new AsyncReserveResult.Acquired(new MeteredAsyncReservation(acquired.reservation(), meters));
        }
        return result;
    }

    /** An asynchronous transactional store, metered; its reservations keep their transaction behind {@code unwrap}. */
    static final class Transactional extends MeteredAsyncStore implements AsyncTransactionalStore {
        private final AsyncTransactionalStore delegate;

        Transactional(AsyncTransactionalStore delegate, StoreMeters meters) {
            super(delegate, meters);
            this.delegate = delegate;
        }

        /** Timed as {@code reserveInTransaction}, each attempt. */
        @Override
        public CompletionStage<AtomicAttempt<AsyncReservation>> attemptInTransaction(
                RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease, Duration ttl,
                Duration wait) {
            return meters.timeAsync("reserveInTransaction",
                            () -> delegate.attemptInTransaction(key, fingerprint, ownerToken, now, lease, ttl, wait))
                    .thenApply(attempt -> {
                        if (attempt instanceof AtomicAttempt.Won<AsyncReservation> won) {
                            meters.reservationWon();
                            return new AtomicAttempt.Won<>(new MeteredAsyncReservation(won.reservation(), meters));
                        }
                        return attempt;
                    });
        }
    }
}
