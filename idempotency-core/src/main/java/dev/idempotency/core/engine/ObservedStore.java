package dev.idempotency.core.engine;

import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.StoreCall;
import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The engine's store as its listener hears it: every call, and every call to a won reservation,
 * told as a {@link StoreCall} when its stage completes, and a reservation the engine lets go
 * unfinished. Only put in place when a listener is set.
 */
public final class ObservedStore implements AsyncStore {

    private final AsyncStore store;
    private final IdempotencyListener listener;

    private ObservedStore(AsyncStore store, IdempotencyListener listener) {
        this.store = store;
        this.listener = listener;
    }

    /** {@code store} observed by {@code listener}, its {@link #atomic} too. */
    public static AsyncStore of(AsyncStore store, IdempotencyListener listener) {
        return listener == IdempotencyListener.none() ? store : new ObservedStore(store, listener);
    }

    @Override
    public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                       Instant now, Duration lease, Duration ttl) {
        return reservation("reserve", () -> store.reserve(key, fingerprint, ownerToken, now, lease, ttl));
    }

    /** As a won reservation's: the engine's reservations call the store they came from, observed below. */
    @Override
    public CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
        return timed("complete", () -> store.complete(key, ownerToken, response));
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        return timed("renew", () -> store.renew(key, ownerToken, now, lease));
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
        return timed("releaseIfOwned", () -> store.releaseIfOwned(key, ownerToken));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
        return timed("find", () -> store.find(key, now));
    }

    @Override
    public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                    Instant now, Duration ttl) {
        return timed("insertCompleted", () -> store.insertCompleted(key, fingerprint, response, now, ttl));
    }

    @Override
    public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
        return store.purgeExpired(now, limit);
    }

    @Override
    public boolean expiresRecordsItself() {
        return store.expiresRecordsItself();
    }

    @Override
    public CompletionStage<Void> check() {
        return timed("check", store::check);
    }

    /**
     * The atomic mode's reservation, all its rounds told as one {@code reserveInTransaction}; the
     * single attempts are not told.
     */
    @Override
    public Optional<Atomic> atomic() {
        return store.atomic().map(atomic -> new Atomic() {
            @Override
            public CompletionStage<AtomicAttempt<AsyncReservation>> attempt(
                    RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease, Duration ttl,
                    Duration wait) {
                return atomic.attempt(key, fingerprint, ownerToken, now, lease, ttl, wait);
            }

            @Override
            public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, Instant now,
                                                               Duration lease, Duration ttl, Duration wait) {
                return reservation("reserveInTransaction",
                        () -> atomic.reserve(key, fingerprint, now, lease, ttl, wait));
            }
        });
    }

    private CompletionStage<AsyncReserveResult> reservation(String operation,
                                                          Supplier<CompletionStage<AsyncReserveResult>> call) {
        long started = System.nanoTime();
        return Stages.attempt(call).whenComplete((result, failure) -> tell(operation, started, failure == null
                        && result instanceof AsyncReserveResult.Acquired ? StoreCall.Result.WON : resultOf(failure)))
                .thenApply(result -> result instanceof AsyncReserveResult.Acquired acquired
                        ? new AsyncReserveResult.Acquired(new Observed(acquired.reservation()))
                        : result);
    }

    /**
     * The store's stage, completing after the listener was told (so the caller sees what it
     * counted); {@link Listeners#tell} keeps whatever the listener throws from the stage.
     */
    private <T> CompletionStage<T> timed(String operation, Supplier<CompletionStage<T>> call) {
        long started = System.nanoTime();
        return Stages.attempt(call).whenComplete((result, failure) -> tell(operation, started, resultOf(failure)));
    }

    private void tell(String operation, long started, StoreCall.Result result) {
        Listeners.tell(listener, new StoreCall(operation, result, Duration.ofNanos(System.nanoTime() - started)));
    }

    private static StoreCall.Result resultOf(Throwable failure) {
        if (failure == null) {
            return StoreCall.Result.SUCCESS;
        }
        return Stages.unwrap(failure) instanceof StorageUnavailableException
                ? StoreCall.Result.UNAVAILABLE : StoreCall.Result.ERROR;
    }

    /** A won reservation: its first finishing call is told as such, later ones not at all. */
    private final class Observed extends ForwardingReservation {
        private final AtomicBoolean finished = new AtomicBoolean();

        Observed(AsyncReservation reservation) {
            super(reservation);
        }

        @Override
        public CompletionStage<Boolean> complete(StoredResponse response) {
            return finishing("complete", () -> super.complete(response));
        }

        @Override
        public CompletionStage<Boolean> release() {
            return finishing("release", super::release);
        }

        @Override
        public CompletionStage<Void> abort() {
            return finishing("abort", super::abort);
        }

        @Override
        public CompletionStage<Boolean> renew(Instant now, Duration lease) {
            return timed("renew", () -> super.renew(now, lease));
        }

        @Override
        void abandon() {
            if (finished.compareAndSet(false, true)) {
                tell("abandon", System.nanoTime(), StoreCall.Result.SUCCESS);
            }
        }

        private <T> CompletionStage<T> finishing(String operation, Supplier<CompletionStage<T>> call) {
            return finished.compareAndSet(false, true) ? timed(operation, call) : Stages.attempt(call);
        }
    }
}
