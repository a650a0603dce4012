package dev.idempotency.micrometer;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A won reservation whose calls are timed. Its first finishing call — complete, release or abort,
 * whether it succeeds or not (a handle is finished either way) — ends its count in flight; the
 * delegate still refuses a second finish.
 */
final class MeteredReservation implements Reservation {

    private final Reservation delegate;
    private final StoreMeters meters;
    private final AtomicBoolean finished = new AtomicBoolean();

    MeteredReservation(Reservation delegate, StoreMeters meters) {
        this.delegate = delegate;
        this.meters = meters;
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
    public boolean complete(StoredResponse response) {
        try {
            return meters.time("complete", () -> delegate.complete(response));
        } finally {
            finished();
        }
    }

    @Override
    public boolean release() {
        try {
            return meters.time("release", delegate::release);
        } finally {
            finished();
        }
    }

    @Override
    public void abort() {
        try {
            meters.time("abort", () -> {
                delegate.abort();
                return null;
            });
        } finally {
            finished();
        }
    }

    @Override
    public boolean renew(Instant now, Duration lease) {
        return meters.time("renew", () -> delegate.renew(now, lease));
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return delegate.unwrap(type);
    }

    private void finished() {
        if (finished.compareAndSet(false, true)) {
            meters.reservationFinished();
        }
    }
}
