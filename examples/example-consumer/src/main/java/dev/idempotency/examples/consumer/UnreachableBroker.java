package dev.idempotency.examples.consumer;

/** A broker the consumer or the publisher could not connect to; the message says which and where. */
final class UnreachableBroker extends RuntimeException {

    UnreachableBroker(String broker, String url, String variable, Exception cause) {
        super(broker + " cannot be reached at " + ConsumerSettings.display(url) + " ("
                + cause.getClass().getSimpleName() + "): start it, or set " + variable, cause);
    }
}
