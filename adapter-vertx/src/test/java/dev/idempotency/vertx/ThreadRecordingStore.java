package dev.idempotency.vertx;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import io.vertx.core.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** A store that remembers on which thread every call — reservation handles included — ran. */
final class ThreadRecordingStore implements Store {

    /** One store call: the operation and the thread it ran on. */
    record Call(String operation, String thread, boolean onEventLoop) {
    }

    private final Store delegate;
    private final List<Call> calls = new CopyOnWriteArrayList<>();

    ThreadRecordingStore(Store delegate) {
        this.delegate = delegate;
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    List<Call> callsOnEventLoop() {
        return calls.stream().filter(Call::onEventLoop).toList();
    }

    private void record(String operation) {
        calls.add(new Call(operation, Thread.currentThread().getName(), Context.isOnEventLoopThread()));
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, Instant now, Duration lease, Duration ttl) {
        record("reserve");
        ReserveResult result = delegate.reserve(key, fingerprint, now, lease, ttl);
        return result instanceof ReserveResult.Acquired acquired
                ? new ReserveResult.Acquired(new RecordingReservation(acquired.reservation()))
                : result;
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        record("find");
        return delegate.find(key, now);
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        record("insertCompleted");
        return delegate.insertCompleted(key, fingerprint, response, now, ttl);
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        record("purgeExpired");
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
            record("complete");
            return delegate.complete(response, now, ttl);
        }

        @Override
        public boolean release() {
            record("release");
            return delegate.release();
        }

        @Override
        public void abort() {
            record("abort");
            delegate.abort();
        }

        @Override
        public boolean renew(Instant now, Duration lease) {
            record("renew");
            return delegate.renew(now, lease);
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return delegate.unwrap(type);
        }
    }
}
