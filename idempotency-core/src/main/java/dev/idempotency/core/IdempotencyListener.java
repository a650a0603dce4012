package dev.idempotency.core;

import dev.idempotency.core.engine.Listeners;
/**
 * Told what happened to every request the engine saw, and of every call it made to its store, for
 * metrics and audit. Called on the thread that saw it happen; keep it fast and never throw
 * (exceptions are logged and ignored).
 */
@FunctionalInterface
public interface IdempotencyListener {

    void onEvent(IdempotencyEvent event);

    /** A call to the store ended; by default ignored. */
    default void onStoreCall(StoreCall call) {
    }

    /** A listener that does nothing. */
    static IdempotencyListener none() {
        return Listeners.NONE;
    }

    /**
     * All of {@code listeners}, in order; one that throws is logged and the others still hear the
     * event.
     */
    static IdempotencyListener all(IdempotencyListener... listeners) {
        return Listeners.all(listeners);
    }
}
