package dev.idempotency.examples;

/** A valid {@code POST /payments} body; see {@link ExampleRequests#payment(byte[])}. */
public record NewPayment(int amount, String outcome) {
}
