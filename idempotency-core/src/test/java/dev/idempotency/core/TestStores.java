package dev.idempotency.core;

import dev.idempotency.core.store.AbstractReservation;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Stores for the engine's tests: a forwarding one to override a call of, and a "transactional" one. */
final class TestStores {

    private TestStores() {
    }

    /** A store passing every call on; override what a test needs to change. */
    static class Forwarding implements Store {
        private final Store delegate;

        Forwarding(Store delegate) {
            this.delegate = delegate;
        }

        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            ReserveResult result = delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
            return result instanceof ReserveResult.Acquired ? ReserveResult.acquired(this, key, ownerToken) : result;
        }

        @Override
        public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
            return delegate.complete(key, ownerToken, response);
        }

        @Override
        public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            return delegate.renew(key, ownerToken, now, lease);
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            return delegate.releaseIfOwned(key, ownerToken);
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
            return delegate.find(key, now);
        }

        @Override
        public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                       Duration ttl) {
            return delegate.insertCompleted(key, fingerprint, response, now, ttl);
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            return delegate.purgeExpired(now, limit);
        }

        /** {@link #reserve}, with a won reservation replaced by what {@code wrap} makes of it. */
        final ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                    Duration ttl, UnaryOperator<Reservation> wrap) {
            ReserveResult result = reserve(key, fingerprint, ownerToken, now, lease, ttl);
            return result instanceof ReserveResult.Acquired acquired
                    ? new ReserveResult.Acquired(wrap.apply(acquired.reservation()))
                    : result;
        }
    }

    /**
     * A store as a transactional one: {@code attemptInTransaction} reserves, and its reservation
     * is what {@code wrap} makes of the plain one (a failing commit, a transaction to unwrap, …).
     */
    static final class Transactional extends Forwarding implements Store {
        private final UnaryOperator<Reservation> wrap;

        Transactional(Store delegate, UnaryOperator<Reservation> wrap) {
            super(delegate);
            this.wrap = wrap;
        }

        @Override
        public java.util.Optional<Atomic> atomic() {
            return java.util.Optional.of(this::attemptInTransaction);
        }

        AtomicAttempt<Reservation> attemptInTransaction(RecordKey key, String fingerprint, String ownerToken,
                                                               Instant now, Duration lease, Duration ttl,
                                                               Duration wait) {
            ReserveResult result = reserve(key, fingerprint, ownerToken, now, lease, ttl, wrap);
            return result instanceof ReserveResult.Acquired acquired
                    ? new AtomicAttempt.Won<>(acquired.reservation())
                    : new AtomicAttempt.Lost<>(((ReserveResult.Existing) result).record());
        }
    }

    /** {@code memory} as a transactional store whose "transaction" is a marker string, {@code "the transaction"}. */
    static Store transactional(Store memory) {
        return new Transactional(memory, inner -> new ForwardingReservation(inner) {
            @Override
            public <T> Optional<T> unwrap(Class<T> type) {
                return type == String.class ? Optional.of(type.cast("the transaction")) : Optional.empty();
            }
        });
    }

    /** A reservation doing what {@code inner} does; override a step to change it. */
    static class ForwardingReservation extends AbstractReservation {
        private final Reservation inner;

        ForwardingReservation(Reservation inner) {
            super(inner.key(), inner.ownerToken());
            this.inner = inner;
        }

        @Override
        protected boolean doComplete(StoredResponse response) {
            return inner.complete(response);
        }

        @Override
        protected boolean doRelease() {
            return inner.release();
        }

        @Override
        protected boolean doRenew(Instant now, Duration lease) {
            return inner.renew(now, lease);
        }
    }
}
