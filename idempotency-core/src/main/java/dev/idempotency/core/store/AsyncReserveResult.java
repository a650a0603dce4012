package dev.idempotency.core.store;

/**
 * The answer of {@link AsyncStore#reserve}: either this caller won the key, or somebody holds it
 * and this is what they hold.
 */
public sealed interface AsyncReserveResult {

    /** The caller won: it owns the reservation and must complete or release it. */
    record Acquired(AsyncReservation reservation) implements AsyncReserveResult {
    }

    /** The key is taken by a live record (in flight or completed); the caller did not win. */
    record Existing(IdempotencyRecord record) implements AsyncReserveResult {
    }
}
