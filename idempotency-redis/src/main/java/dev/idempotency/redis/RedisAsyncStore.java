package dev.idempotency.redis;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@link RedisStore#async()}: the same primitives without blocking; each stage completes on a
 * Lettuce I/O thread, or fails with what the blocking face would throw.
 */
final class RedisAsyncStore implements AsyncStore {

    private final RedisStore store;

    RedisAsyncStore(RedisStore store) {
        this.store = store;
    }

    @Override
    public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                       Instant now, Duration lease, Duration ttl) {
        return store.reserveAsync(key, fingerprint, now, lease, ttl, ownerToken).thenApply(existing -> existing
                .<AsyncReserveResult>map(AsyncReserveResult.Existing::new)
                .orElseGet(() -> AsyncReserveResult.acquired(this, key, ownerToken)));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
        return store.completeAsync(key, ownerToken, response);
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        return store.renewAsync(key, ownerToken, now, lease);
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
        return store.release(key, ownerToken);
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
        return store.findAsync(key, now);
    }

    @Override
    public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                    Instant now, Duration ttl) {
        return store.insertCompletedAsync(key, fingerprint, response, now, ttl);
    }

    /** As {@link RedisStore#purgeExpired}: 0, Redis expires records itself. */
    @Override
    public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
        try {
            return CompletableFuture.completedFuture(store.purgeExpired(now, limit));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@code true}: Redis deletes each record at its expiry. */
    @Override
    public boolean expiresRecordsItself() {
        return true;
    }
}
