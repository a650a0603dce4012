package dev.idempotency.examples;

/** A valid {@code POST /orders} body; see {@link ExampleRequests#order(byte[])}. */
public record NewOrder(String item, int quantity) {
}
