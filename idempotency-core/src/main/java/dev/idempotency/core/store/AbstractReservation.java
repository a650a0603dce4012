package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Base for store reservations that guarantees a handle is finished at most once, whatever the
 * store does underneath, and that a finished handle is not renewed.
 */
public abstract class AbstractReservation implements Reservation {

    private final RecordKey key;
    private final String ownerToken;
    private final AtomicBoolean finished = new AtomicBoolean();

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
        markFinished("complete");
        return doComplete(response);
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
        if (finished.get()) {
            return false;
        }
        return doRenew(now, lease);
    }

    /** Whether {@link #complete}, {@link #release} or {@link #abort} has been called. */
    protected final boolean isFinished() {
        return finished.get();
    }

    protected abstract boolean doComplete(StoredResponse response);

    protected abstract boolean doRelease();

    /** Rolls back after a handler failure; plain stores release. */
    protected void doAbort() {
        doRelease();
    }

    protected abstract boolean doRenew(Instant now, Duration lease);

    private void markFinished(String operation) {
        if (!finished.compareAndSet(false, true)) {
            throw new IllegalStateException("Reservation for " + key + " already finished; cannot " + operation);
        }
    }
}
