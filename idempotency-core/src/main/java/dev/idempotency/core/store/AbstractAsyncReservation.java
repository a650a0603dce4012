package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The asynchronous face's {@link AbstractReservation}: a base for store reservations that
 * guarantees a handle is finished at most once, whatever the store does underneath (a second
 * {@link #complete}, {@link #release} or {@link #abort} fails its stage with
 * {@link IllegalStateException} and sends nothing), and that a finished handle is not renewed.
 * A {@link #complete} whose stage fails has no answer: the handle stays open, so the engine may
 * complete (or renew) it again with the same owner token.
 */
public abstract class AbstractAsyncReservation extends Finishing implements AsyncReservation {

    protected AbstractAsyncReservation(RecordKey key, String ownerToken) {
        super(key, ownerToken);
    }

    @Override
    public final CompletionStage<Boolean> complete(StoredResponse response) {
        Objects.requireNonNull(response, "response");
        if (!state.compareAndSet(OPEN, COMPLETING)) {
            return finished("complete");
        }
        CompletionStage<Boolean> completed;
        try {
            completed = doComplete(response);
        } catch (RuntimeException e) {
            completed = CompletableFuture.failedFuture(e);
        }
        return completed.whenComplete((answer, failure) -> state.set(after(failure)));
    }

    @Override
    public final CompletionStage<Boolean> release() {
        return finish() ? doRelease() : finished("release");
    }

    @Override
    public final CompletionStage<Void> abort() {
        return finish() ? doAbort() : finished("abort");
    }

    @Override
    public final CompletionStage<Boolean> renew(Instant now, Duration lease) {
        return state.get() == FINISHED ? CompletableFuture.completedFuture(false) : doRenew(now, lease);
    }

    protected abstract CompletionStage<Boolean> doComplete(StoredResponse response);

    protected abstract CompletionStage<Boolean> doRelease();

    /** Rolls back after a handler failure; plain stores release. */
    protected CompletionStage<Void> doAbort() {
        return doRelease().thenApply(released -> null);
    }

    protected abstract CompletionStage<Boolean> doRenew(Instant now, Duration lease);

    private boolean finish() {
        return state.compareAndSet(OPEN, FINISHED);
    }

    private <T> CompletionStage<T> finished(String operation) {
        return CompletableFuture.failedFuture(alreadyFinished(operation));
    }
}
