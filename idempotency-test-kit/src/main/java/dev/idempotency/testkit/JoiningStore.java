package dev.idempotency.testkit;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An {@link AsyncStore} seen as a blocking {@link Store}, so that one contract suite checks both
 * faces: each call waits for its stage (at most a minute) and throws what the stage failed with.
 */
final class JoiningStore implements Store {

    private final AsyncStore store;

    JoiningStore(AsyncStore store) {
        this.store = store;
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                 Duration ttl) {
        AsyncReserveResult result = join(store.reserve(key, fingerprint, ownerToken, now, lease, ttl));
        return result instanceof AsyncReserveResult.Acquired
                ? ReserveResult.acquired(this, key, ownerToken)
                : new ReserveResult.Existing(((AsyncReserveResult.Existing) result).record());
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
        return join(store.complete(key, ownerToken, response));
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        return join(store.renew(key, ownerToken, now, lease));
    }

    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        return join(store.releaseIfOwned(key, ownerToken));
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        return join(store.find(key, now));
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        return join(store.insertCompleted(key, fingerprint, response, now, ttl));
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        return join(store.purgeExpired(now, limit));
    }

    @Override
    public boolean expiresRecordsItself() {
        return store.expiresRecordsItself();
    }

    @Override
    public void check() {
        join(store.check());
    }

    static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("the store's stage did not complete within a minute", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }
}
