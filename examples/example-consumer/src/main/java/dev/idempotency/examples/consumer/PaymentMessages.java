package dev.idempotency.examples.consumer;

import dev.idempotency.core.call.CallContext;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.Tenants;
import java.sql.Connection;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What both brokers' consumers do with a payment message: read its body as a {@code POST /payments}
 * body, record it through {@link ExampleApp#createPayment} (in the atomic mode on the call's
 * transaction, so the row commits with the idempotency record), and print one line per message
 * naming the key's preview only, never the whole key or the body.
 */
final class PaymentMessages {

    private final ExampleApp app;
    private final Consumer<String> out;

    PaymentMessages(ExampleApp app, Consumer<String> out) {
        this.app = app;
        this.out = out;
    }

    /** The body as a payment; empty (and a line printed) when it is none, so that it is refused unrun. */
    Optional<NewPayment> read(String source, String key, byte[] body) {
        try {
            return Optional.of(ExampleRequests.payment(body));
        } catch (ProblemException e) {
            // the detail is the example's own words, never the input
            report(source, key, "is not a payment (" + e.problem().detail() + "): refused without running");
            return Optional.empty();
        }
    }

    /** Records the payment; runs at most once per key (the caller's idempotent consumer sees to it). */
    Payment record(NewPayment payment, CallContext context) {
        Optional<Connection> transaction = context.unwrap(Connection.class);
        return app.createPayment(transaction, Tenants.DEFAULT, payment);
    }

    void recorded(String source, String key, Payment payment) {
        report(source, key, "recorded payment " + payment.id() + " (amount " + payment.amount() + ", "
                + payment.status() + ")");
    }

    void report(String source, String key, String what) {
        out.accept(source + ": message " + (key == null ? "without id" : RecordKey.preview(key)) + " " + what);
    }
}
