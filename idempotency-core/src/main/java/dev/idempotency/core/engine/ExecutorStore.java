package dev.idempotency.core.engine;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/** A blocking {@link Store} behind the asynchronous face: each call runs on an executor. */
public final class ExecutorStore implements AsyncStore {

    /** Runs a call where it is made; {@link #call} then skips the executor machinery altogether. */
    public static final Executor CALLING_THREAD = Runnable::run;

    private final Store store;
    private final Executor executor;

    public ExecutorStore(Store store, Executor executor) {
        this.store = store;
        this.executor = executor;
    }

    @Override
    public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                       Instant now, Duration lease, Duration ttl) {
        return call(() -> adapt(store.reserve(key, fingerprint, ownerToken, now, lease, ttl)));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
        return call(() -> store.complete(key, ownerToken, response));
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        return call(() -> store.renew(key, ownerToken, now, lease));
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
        return call(() -> store.releaseIfOwned(key, ownerToken));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
        return call(() -> store.find(key, now));
    }

    @Override
    public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                    Instant now, Duration ttl) {
        return call(() -> store.insertCompleted(key, fingerprint, response, now, ttl));
    }

    @Override
    public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
        return call(() -> store.purgeExpired(now, limit));
    }

    @Override
    public boolean expiresRecordsItself() {
        return store.expiresRecordsItself();
    }

    @Override
    public CompletionStage<Void> check() {
        return run(store::check);
    }

    @Override
    public Optional<Atomic> atomic() {
        return store.atomic().map(atomic -> (key, fingerprint, ownerToken, now, lease, ttl, wait) -> call(
                () -> atomic.attempt(key, fingerprint, ownerToken, now, lease, ttl, wait)
                        .<AsyncReservation>map(OnExecutor::new)));
    }

    @Override
    public String toString() {
        return "AsyncStore.of(" + store + ")";
    }

    private <T> CompletionStage<T> call(Supplier<T> blocking) {
        if (executor != CALLING_THREAD) {
            return CompletableFuture.supplyAsync(blocking, executor);
        }
        try {
            return CompletableFuture.completedFuture(blocking.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletionStage<Void> run(Runnable blocking) {
        return call(() -> {
            blocking.run();
            return null;
        });
    }

    private AsyncReserveResult adapt(ReserveResult result) {
        // A plain reservation is the store's primitives for its key and token: its handle is made
        // again over this face's, so that its calls cross no wrapper of their own.
        return result instanceof ReserveResult.Acquired acquired
                ? AsyncReserveResult.acquired(this, acquired.reservation().key(), acquired.reservation().ownerToken())
                : new AsyncReserveResult.Existing(((ReserveResult.Existing) result).record());
    }

    /** An atomic reservation (the store's own, holding its transaction) whose calls run on the store's executor. */
    private final class OnExecutor extends AbstractAsyncReservation {
        private final Reservation reservation;

        OnExecutor(Reservation reservation) {
            super(reservation.key(), reservation.ownerToken());
            this.reservation = reservation;
        }

        @Override
        protected CompletionStage<Boolean> doComplete(StoredResponse response) {
            return call(() -> reservation.complete(response));
        }

        @Override
        protected CompletionStage<Boolean> doRelease() {
            return call(reservation::release);
        }

        @Override
        protected CompletionStage<Void> doAbort() {
            return run(reservation::abort);
        }

        @Override
        protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
            return call(() -> reservation.renew(now, lease));
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return reservation.unwrap(type);
        }
    }
}
