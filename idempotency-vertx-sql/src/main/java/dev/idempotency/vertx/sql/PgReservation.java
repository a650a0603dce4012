package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/** A reservation of the reserve mode: each finish is one owner-checked statement on the pool. */
final class PgReservation implements AsyncReservation {

    private final PgStore store;
    private final RecordKey key;
    private final String ownerToken;
    private final AtomicBoolean finished = new AtomicBoolean();

    PgReservation(PgStore store, RecordKey key, String ownerToken) {
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
        return store.stage(finish("complete").compose(v -> store.complete(key, ownerToken, response)));
    }

    @Override
    public CompletionStage<Boolean> release() {
        return store.stage(finish("release").compose(v -> store.release(key, ownerToken)));
    }

    @Override
    public CompletionStage<Boolean> renew(Instant now, Duration lease) {
        if (finished.get()) {
            return Future.succeededFuture(false).toCompletionStage();
        }
        return store.stage(store.renew(null, key, ownerToken, now, lease));
    }

    /** Marks the handle finished, or fails when it was already. */
    private Future<Void> finish(String operation) {
        return finished.compareAndSet(false, true)
                ? Future.succeededFuture()
                : Future.failedFuture(new IllegalStateException("Reservation for " + key + " already finished; cannot "
                        + operation));
    }
}
