package dev.idempotency.micrometer;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * {@link MeteredReservation} for the asynchronous face: the count in flight ends when the first
 * finishing call's stage completes (or the call throws).
 */
final class MeteredAsyncReservation implements AsyncReservation {

    private final AsyncReservation delegate;
    private final StoreMeters meters;
    private final AtomicBoolean finished = new AtomicBoolean();

    MeteredAsyncReservation(AsyncReservation delegate, StoreMeters meters) {
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
    public CompletionStage<Boolean> complete(StoredResponse response) {
        return finishing("complete", () -> delegate.complete(response));
    }

    @Override
    public CompletionStage<Boolean> release() {
        return finishing("release", delegate::release);
    }

    @Override
    public CompletionStage<Void> abort() {
        return finishing("abort", delegate::abort);
    }

    @Override
    public CompletionStage<Boolean> renew(Instant now, Duration lease) {
        return meters.timeAsync("renew", () -> delegate.renew(now, lease));
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return delegate.unwrap(type);
    }

    private <T> CompletionStage<T> finishing(String operation, Supplier<CompletionStage<T>> call) {
        try {
            return meters.timeAsync(operation, call).whenComplete((result, failure) -> finished());
        } catch (RuntimeException e) {
            finished();
            throw e;
        }
    }

    private void finished() {
        if (finished.compareAndSet(false, true)) {
            meters.reservationFinished();
        }
    }
}
