package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Base for store reservations that guarantees a handle is finished at most once, whatever the
 * store does underneath, and that a finished handle is not renewed. A {@link #complete} that
 * throws has no answer: the handle stays open, so the engine may complete (or renew) it again
 * with the same owner token.
 */
public abstract class AbstractReservation extends Finishing implements Reservation {

    protected AbstractReservation(RecordKey key, String ownerToken) {
        super(key, ownerToken);
    }

    @Override
    public final boolean complete(StoredResponse response) {
        Objects.requireNonNull(response, "response");
        if (!state.compareAndSet(OPEN, COMPLETING)) {
            throw alreadyFinished("complete");
        }
        Throwable failure = null;
        try {
            return doComplete(response);
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            state.set(after(failure));
        }
    }

    @Override
    public final boolean release() {
        markFinished("release");
        return doRelease();
    }

    @Override
    public final void abort() {
        markFinished("abort");
        doAbort();
    }

    @Override
    public final boolean renew(Instant now, Duration lease) {
        if (state.get() == FINISHED) {
            return false;
        }
        return doRenew(now, lease);
    }

    protected abstract boolean doComplete(StoredResponse response);

    protected abstract boolean doRelease();

    /** Rolls back after a handler failure; plain stores release. */
    protected void doAbort() {
        doRelease();
    }

    protected abstract boolean doRenew(Instant now, Duration lease);

    private void markFinished(String operation) {
        if (!state.compareAndSet(OPEN, FINISHED)) {
            throw alreadyFinished(operation);
        }
    }
}
