package dev.idempotency.core.store;

/**
 * The states of a reservation handle, shared by {@link AbstractReservation} and
 * {@link AbstractAsyncReservation}: open; a complete under way; finished. A complete that failed
 * (threw, or its stage failed) had no answer, so the handle is open again; any answer finishes it.
 */
final class Finishing {

    static final int OPEN = 0;
    static final int COMPLETING = 1;
    static final int FINISHED = 2;

    private Finishing() {
    }

    /** The state after a complete that ended with {@code failure} ({@code null}: it answered). */
    static int after(Throwable failure) {
        return failure == null ? FINISHED : OPEN;
    }
}
