package dev.idempotency.redis;

import dev.idempotency.core.store.AbstractReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;

/** A won reservation of {@link RedisStore}'s blocking face: each finish is one owner-checked script. */
final class RedisReservation extends AbstractReservation {

    private final RedisStore store;

    RedisReservation(RedisStore store, RecordKey key, String ownerToken) {
        super(key, ownerToken);
        this.store = store;
    }

    @Override
    protected boolean doComplete(StoredResponse response) {
        return RedisStore.await(store.complete(key(), ownerToken(), response));
    }

    @Override
    protected boolean doRelease() {
        return RedisStore.await(store.release(key(), ownerToken()));
    }

    @Override
    protected boolean doRenew(Instant now, Duration lease) {
        return RedisStore.await(store.renew(key(), ownerToken(), now, lease));
    }
}
