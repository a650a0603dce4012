package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Base for store reservations that guarantees a handle is finished at most once, whatever the
 * store does underneath, and that a finished handle is not renewed. A {@link #complete} that
 * throws has no answer: the handle stays open, so the engine may complete (or renew) it again
 * with the same owner token.
 */
public abstract class AbstractReservation implements Reservation {

    private final RecordKey key;
    private final String ownerToken;
    private final AtomicInteger state = new AtomicInteger(Finishing.OPEN);

    protected AbstractReservation(RecordKey key, String ownerToken) {
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
    public final boolean complete(StoredResponse response) {
        Objects.requireNonNull(response, "response");
        if (!state.compareAndSet(Finishing.OPEN, Finishing.COMPLETING)) {
            throw alreadyFinished("complete");
        }
        Throwable failure = null;
        try {
            return doComplete(response);
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            state.set(Finishing.after(failure));
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
        if (state.get() == Finishing.FINISHED) {
            return false;
        }
        return doRenew(now, lease);
    }

    /**
     * Whether {@link #complete}, {@link #release} or {@link #abort} has been called (and, for
     * {@code complete}, not thrown).
     */
    protected final boolean isFinished() {
        return state.get() != Finishing.OPEN;
    }

    protected abstract boolean doComplete(StoredResponse response);

    protected abstract boolean doRelease();

    /** Rolls back after a handler failure; plain stores release. */
    protected void doAbort() {
        doRelease();
    }

    protected abstract boolean doRenew(Instant now, Duration lease);

    private void markFinished(String operation) {
        if (!state.compareAndSet(Finishing.OPEN, Finishing.FINISHED)) {
            throw alreadyFinished(operation);
        }
    }

    private IllegalStateException alreadyFinished(String operation) {
        return new IllegalStateException("Reservation for " + key + " already finished; cannot " + operation);
    }
}
