package dev.idempotency.core.store;

import dev.idempotency.core.engine.AtomicRounds;
import dev.idempotency.core.engine.ExecutorStore;
import dev.idempotency.core.internal.OwnerTokens;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The non-blocking face of a store: the same atomic primitives as {@link Store}, with the same
 * contract, each answering with a {@link CompletionStage} instead of blocking the caller — for
 * drivers that are asynchronous themselves (a reactive SQL client, Redis).
 *
 * <p>A stage completes exceptionally where the blocking method would throw: with
 * {@link StorageUnavailableException} when the storage is missing or cannot be reached (the engine
 * answers 503), with any other exception for any other failure. A blocking {@link Store} gets this
 * face through {@link #of(Store, Executor)}.
 *
 * <p>The test kit's {@code AsyncStoreContractTest} checks the contract; a custom asynchronous
 * store should extend it.
 */
public interface AsyncStore {

    /** As {@link Store#reserve}: the won reservation, carrying {@code ownerToken}, or the live record in the way. */
    CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken, Instant now,
                                                Duration lease, Duration ttl);

    /** {@link #reserve(RecordKey, String, String, Instant, Duration, Duration)} with a fresh random token. */
    default CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, Instant now, Duration lease,
                                                        Duration ttl) {
        return reserve(key, fingerprint, OwnerTokens.next(), now, lease, ttl);
    }

    /** As {@link Store#complete}: {@code false} when the token no longer owns the record. */
    CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response);

    /** As {@link Store#renew}: {@code false} when the token no longer owns the record. */
    CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease);

    /**
     * As {@link Store#releaseIfOwned}: deletes the record only while it is in flight under
     * {@code ownerToken}; {@code true} when this call deleted it.
     */
    CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken);

    /** As {@link Store#find}. */
    CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now);

    /** As {@link Store#insertCompleted}: {@code true} when this call stored the record. */
    CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                             Duration ttl);

    /** As {@link Store#purgeExpired}: how many records went (at most {@code limit}). */
    CompletionStage<Integer> purgeExpired(Instant now, int limit);

    /** As {@link Store#expiresRecordsItself}: {@code true} when nothing need run {@link #purgeExpired}. */
    default boolean expiresRecordsItself() {
        return false;
    }

    /**
     * As {@link Store#check}: completes when the storage is reachable and provisioned, and
     * exceptionally with {@link StorageUnavailableException} otherwise.
     */
    default CompletionStage<Void> check() {
        return find(RecordKey.HEALTH_PROBE, Instant.now()).thenApply(found -> null);
    }

    /** As {@link Store#atomic}: the atomic mode's primitive, when this store has one. */
    default Optional<Atomic> atomic() {
        return Optional.empty();
    }

    /** As {@link Store.Atomic}: one attempt to reserve a key in a new transaction. */
    @FunctionalInterface
    interface Atomic {

        /** As {@link Store.Atomic#attempt}. */
        CompletionStage<AtomicAttempt<AsyncReservation>> attempt(RecordKey key, String fingerprint,
                                                                 String ownerToken, Instant now, Duration lease,
                                                                 Duration ttl, Duration wait);

        /**
         * The atomic mode's reservation as the engine makes it from {@link #attempt}: a holder in
         * flight is answered with an in-flight record (its fingerprint the caller's, or
         * {@link AtomicAttempt#ANOTHER_BODY}); a holder gone or completing is asked once more with
         * what is left of {@code wait}, after which nobody fails with
         * {@link StorageUnavailableException.Reason#BUSY} and a completing holder is in flight; a
         * rollback by the database starts over; a few rounds at most.
         */
        default CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, Instant now,
                                                            Duration lease, Duration ttl, Duration wait) {
            return AtomicRounds.reserve(this, key, fingerprint, now, lease, ttl, wait);
        }
    }

    /**
     * A blocking store seen through this face: every call runs on {@code executor} (a worker pool
     * sized like the store's connection pool; {@code Runnable::run} runs it on the calling thread).
     * The store's {@link Store#atomic} is offered through it too.
     */
    static AsyncStore of(Store store, Executor executor) {
        return new ExecutorStore(Objects.requireNonNull(store, "store"), Objects.requireNonNull(executor, "executor"));
    }

    /**
     * A blocking store seen through this face with its calls made on the calling thread: every
     * stage is complete when it is returned. This is how the engine runs a blocking store.
     */
    static AsyncStore onCallingThread(Store store) {
        return of(store, ExecutorStore.CALLING_THREAD);
    }
}
