package dev.idempotency.micronaut;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** An in-memory store that notes the thread of every call, on the store and on its reservations. */
final class RecordingStore implements Store {

    private final InMemoryStore delegate = new InMemoryStore();
    private final List<String> calls = new CopyOnWriteArrayList<>();

    /** "operation@thread-name" for every call so far. */
    List<String> calls() {
        return List.copyOf(calls);
    }

    private void note(String operation) {
        calls.add(operation + "@" + Thread.currentThread().getName());
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, Instant now, Duration lease, Duration ttl) {
        note("reserve");
        ReserveResult result = delegate.reserve(key, fingerprint, now, lease, ttl);
        return result instanceof ReserveResult.Acquired acquired
                ? new ReserveResult.Acquired(new RecordingReservation(acquired.reservation()))
                : result;
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        note("find");
        return delegate.find(key, now);
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        note("insertCompleted");
        return delegate.insertCompleted(key, fingerprint, response, now, ttl);
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        note("purgeExpired");
        return delegate.purgeExpired(now, limit);
    }

    private final class RecordingReservation implements Reservation {
        private final Reservation delegate;

        RecordingReservation(Reservation delegate) {
            this.delegate = delegate;
        }

        @Override
        public RecordKey key() {
            return delegate.key();
        }

        @Override
        public String ownerToken() {
            return delegate.ownerToken();
        }

        @Override
        public boolean complete(StoredResponse response, Instant now, Duration ttl) {
            note("complete");
            return delegate.complete(response, now, ttl);
        }

        @Override
        public boolean release() {
            note("release");
            return delegate.release();
        }

        @Override
        public void abort() {
            note("abort");
            delegate.abort();
        }

        @Override
        public boolean renew(Instant now, Duration lease) {
            // Renewals run on the engine's own timer thread, never on a request thread.
            return delegate.renew(now, lease);
        }
    }
}
