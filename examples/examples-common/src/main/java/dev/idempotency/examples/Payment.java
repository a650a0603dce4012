package dev.idempotency.examples;

/**
 * A payment attempt, as the service answers it: {@code {"id":..,"amount":..,"status":..}} where the
 * status is the requested outcome ({@code succeeded}, {@code partial} or {@code failed}).
 */
public record Payment(long id, int amount, String status) {
}
