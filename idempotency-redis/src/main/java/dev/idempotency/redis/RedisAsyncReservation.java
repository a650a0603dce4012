package dev.idempotency.redis;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A won reservation of {@link RedisStore#async()}: finished once (a second finish fails its stage
 * with {@link IllegalStateException}), each finish one owner-checked script.
 */
final class RedisAsyncReservation implements AsyncReservation {

    private final RedisStore store;
    private final RecordKey key;
    private final String ownerToken;
    private final AtomicBoolean finished = new AtomicBoolean();

    RedisAsyncReservation(RedisStore store, RecordKey key, String ownerToken) {
        this.store = store;
        this.key = key;
        this.ownerToken = ownerToken;
    }

    @Override
    public RecordKey key() {
        return key;
    }

    @Override
    public String ownerToken() {
        return ownerToken;
    }

    @Override
    public CompletionStage<Boolean> complete(StoredResponse response) {
        Objects.requireNonNull(response, "response");
        return finish() ? store.complete(key, ownerToken, response) : alreadyFinished("complete");
    }

    @Override
    public CompletionStage<Boolean> release() {
        return finish() ? store.release(key, ownerToken) : alreadyFinished("release");
    }

    @Override
    public CompletionStage<Void> abort() {
        return finish() ? store.release(key, ownerToken).thenApply(released -> null) : alreadyFinished("abort");
    }

    @Override
    public CompletionStage<Boolean> renew(Instant now, Duration lease) {
        return finished.get() ? CompletableFuture.completedFuture(false) : store.renew(key, ownerToken, now, lease);
    }

    private boolean finish() {
        return finished.compareAndSet(false, true);
    }

    private <T> CompletionStage<T> alreadyFinished(String operation) {
        return CompletableFuture.failedFuture(new IllegalStateException(
                "Reservation for " + key + " already finished; cannot " + operation));
    }
}
