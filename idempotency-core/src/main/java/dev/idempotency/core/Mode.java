package dev.idempotency.core;

/**
 * How the engine guards the handler. Side by side:
 *
 * <ul>
 *   <li>{@link #OPTIMISTIC}: look up, run, then insert-if-absent. Concurrent duplicates can both
 *       run; a crash after the handler loses the record.</li>
 *   <li>{@link #RESERVE} (default): reserve the key atomically first, run, then complete. Exactly
 *       one concurrent duplicate runs; a crash between the handler's commit and the completion
 *       leaves an in-flight record whose lease expires, after which a retry runs again.</li>
 *   <li>{@link #ATOMIC}: like {@code RESERVE}, but the reservation, the handler's own database
 *       writes and the stored response commit in one transaction — needs
 *       a store whose {@link dev.idempotency.core.store.Store#atomic} offers it.</li>
 * </ul>
 */
public enum Mode {
    OPTIMISTIC,
    RESERVE,
    ATOMIC
}
