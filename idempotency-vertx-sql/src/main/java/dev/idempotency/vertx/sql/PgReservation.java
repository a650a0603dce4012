package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/** A reservation of the reserve mode: each finish is one owner-checked statement on the pool. */
final class PgReservation extends AbstractAsyncReservation {

    private final PgStore store;

    PgReservation(PgStore store, RecordKey key, String ownerToken) {
        super(key, ownerToken);
        this.store = store;
    }

    @Override
    protected CompletionStage<Boolean> doComplete(StoredResponse response) {
        return store.stage(store.complete(key(), ownerToken(), response));
    }

    @Override
    protected CompletionStage<Boolean> doRelease() {
        return store.stage(store.release(key(), ownerToken()));
    }

    @Override
    protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
        return store.stage(store.renew(null, key(), ownerToken(), now, lease));
    }
}
