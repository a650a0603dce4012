package dev.idempotency.examples;

/**
 * A stored order, as the service answers it: {@code {"id":..,"item":..,"quantity":..,"status":"created"}}.
 * A plain record: Jackson writes its components in this order.
 */
public record Order(long id, String item, int quantity, String status) {
}
