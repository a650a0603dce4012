package dev.idempotency.core.store;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link AbstractReservation} and {@link AbstractAsyncReservation} share: the key, the owner
 * token and the handle's state — open; a complete under way; finished. A complete that failed
 * (threw, or its stage failed) had no answer, so the handle is open again; any answer finishes it.
 */
abstract class Finishing {

    static final int OPEN = 0;
    static final int COMPLETING = 1;
    static final int FINISHED = 2;

    private final RecordKey key;
    private final String ownerToken;
    final AtomicInteger state = new AtomicInteger(OPEN);

    Finishing(RecordKey key, String ownerToken) {
        this.key = Objects.requireNonNull(key, "key");
        this.ownerToken = Objects.requireNonNull(ownerToken, "ownerToken");
    }

    /** The reserved namespace and key. */
    public final RecordKey key() {
        return key;
    }

    /** The owner token written with the reservation: only its holder may finish it. */
    public final String ownerToken() {
        return ownerToken;
    }

    /**
     * Whether {@code complete}, {@code release} or {@code abort} has been called (and, for
     * {@code complete}, not failed).
     */
    protected final boolean isFinished() {
        return state.get() != OPEN;
    }

    /** The state after a complete that ended with {@code failure} ({@code null}: it answered). */
    static int after(Throwable failure) {
        return failure == null ? FINISHED : OPEN;
    }

    final IllegalStateException alreadyFinished(String operation) {
        return new IllegalStateException("Reservation for " + key + " already finished; cannot " + operation);
    }
}
