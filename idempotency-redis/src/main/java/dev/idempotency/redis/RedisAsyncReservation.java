package dev.idempotency.redis;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * A won reservation of {@link RedisStore#async()}: finished once (a second finish fails its stage
 * with {@link IllegalStateException}), each finish one owner-checked script.
 */
final class RedisAsyncReservation extends AbstractAsyncReservation {

    private final RedisStore store;

    RedisAsyncReservation(RedisStore store, RecordKey key, String ownerToken) {
        super(key, ownerToken);
        this.store = store;
    }

    @Override
    protected CompletionStage<Boolean> doComplete(StoredResponse response) {
        return store.complete(key(), ownerToken(), response);
    }

    @Override
    protected CompletionStage<Boolean> doRelease() {
        return store.release(key(), ownerToken());
    }

    @Override
    protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
        return store.renew(key(), ownerToken(), now, lease);
    }
}
