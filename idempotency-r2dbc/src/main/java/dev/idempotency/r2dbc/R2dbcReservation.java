package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/** A reservation of the reserve mode: each finish is one owner-checked statement. */
final class R2dbcReservation extends AbstractAsyncReservation {

    private final R2dbcStore store;

    R2dbcReservation(R2dbcStore store, RecordKey key, String ownerToken) {
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
        return store.stage(store.renew(key(), ownerToken(), now, lease));
    }
}
