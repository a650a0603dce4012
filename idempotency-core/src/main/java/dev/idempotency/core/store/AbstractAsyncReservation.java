package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The asynchronous face's {@link AbstractReservation}: a base for store reservations that
 * guarantees a handle is finished at most once, whatever the store does underneath (a second
 * {@link #complete}, {@link #release} or {@link #abort} fails its stage with
 * {@link IllegalStateException} and sends nothing), and that a finished handle is not renewed.
 */
public abstract class AbstractAsyncReservation implements AsyncReservation {

    private final RecordKey key;
    private final String ownerToken;
    private final AtomicBoolean finished = new AtomicBoolean();

    protected AbstractAsyncReservation(RecordKey key, String ownerToken) {
        this.key = Objects.requireNonNull(key, "key");
        this.ownerToken = Objects.requireNonNull(ownerToken, "ownerToken");
    }

    @Override
    public final RecordKey key() {
        return key;
    }

    @Override
    public final String ownerToken() {
        return ownerToken;
    }

    @Override
    public final CompletionStage<Boolean> complete(StoredResponse response) {
        Objects.requireNonNull(response, "response");
        return finish() ? doComplete(response) : alreadyFinished("complete");
    }

    @Override
    public final CompletionStage<Boolean> release() {
        return finish() ? doRelease() : alreadyFinished("release");
    }

    @Override
    public final CompletionStage<Void> abort() {
        return finish() ? doAbort() : alreadyFinished("abort");
    }

    @Override
    public final CompletionStage<Boolean> renew(Instant now, Duration lease) {
        return finished.get() ? CompletableFuture.completedFuture(false) : doRenew(now, lease);
    }

    /** Whether {@link #complete}, {@link #release} or {@link #abort} has been called. */
    protected final boolean isFinished() {
        return finished.get();
    }

    protected abstract CompletionStage<Boolean> doComplete(StoredResponse response);

    protected abstract CompletionStage<Boolean> doRelease();

    /** Rolls back after a handler failure; plain stores release. */
    protected CompletionStage<Void> doAbort() {
        return doRelease().thenApply(released -> null);
    }

    protected abstract CompletionStage<Boolean> doRenew(Instant now, Duration lease);

    private boolean finish() {
        return finished.compareAndSet(false, true);
    }

    private <T> CompletionStage<T> alreadyFinished(String operation) {
        return CompletableFuture.failedFuture(new IllegalStateException(
                "Reservation for " + key + " already finished; cannot " + operation));
    }
}
