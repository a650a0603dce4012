package dev.idempotency.examples.consumer;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.core.store.Store;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Payment;
import dev.idempotency.nats.IdempotentConsumer;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Payments from a JetStream stream through {@link IdempotentConsumer}: the key is the message's
 * {@value #KEY_HEADER} header, the scope {@code <stream>.}{@value #CONSUMER}. The stream is created if
 * missing, and a durable consumer named {@value #CONSUMER} (explicit acknowledgement, no delivery
 * limit) on the subject. The key is not {@code Nats-Msg-Id}: JetStream drops a second publication
 * with that id inside its duplicate window, so a duplicate published by hand would never reach the
 * consumer.
 */
final class NatsPayments implements AutoCloseable {

    /** The header that carries a payment message's id. */
    static final String KEY_HEADER = "Payment-Id";
    static final String CONSUMER = "payments-example";

    private final Connection connection;
    private final IdempotentCalls calls;
    private final MessageConsumer subscription;

    private NatsPayments(Connection connection, IdempotentCalls calls, MessageConsumer subscription) {
        this.connection = connection;
        this.calls = calls;
        this.subscription = subscription;
    }

    static Connection connect(ConsumerSettings settings) throws IOException, InterruptedException {
        try {
            return Nats.connect(new Options.Builder().server(settings.natsUrl()).connectionName(CONSUMER).build());
        } catch (IOException e) {
            throw new UnreachableBroker("NATS", settings.natsUrl(), "NATS_URL", e);
        }
    }

    /** Creates the stream on the subject unless it exists. */
    static void declare(Connection connection, ConsumerSettings settings) throws IOException, JetStreamApiException {
        JetStreamManagement management = connection.jetStreamManagement();
        try {
            management.getStreamInfo(settings.stream());
        } catch (JetStreamApiException e) {
            if (e.getErrorCode() != 404) {
                throw e;
            }
            management.addStream(StreamConfiguration.builder().name(settings.stream())
                    .subjects(settings.subject()).build());
        }
    }

    static NatsPayments start(Store store, IdempotencyConfig config, ConsumerSettings settings,
                              PaymentMessages payments) throws IOException, InterruptedException, JetStreamApiException {
        Connection connection = connect(settings);
        IdempotentCalls calls = null;
        try {
            declare(connection, settings);
            calls = new IdempotentCalls(store, config);
            IdempotentConsumer consumer = IdempotentConsumer.builder(calls).keyHeader(KEY_HEADER).build();
            String source = "nats " + settings.stream();
            MessageConsumer subscription = connection.getStreamContext(settings.stream())
                    .createOrUpdateConsumer(ConsumerConfiguration.builder().durable(CONSUMER)
                            .filterSubject(settings.subject()).ackPolicy(AckPolicy.Explicit).maxDeliver(-1).build())
                    .consume(message -> handle(consumer, message, source, payments));
            return new NatsPayments(connection, calls, subscription);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            if (calls != null) {
                calls.close();
            }
            connection.close();
            throw e;
        }
    }

    private static void handle(IdempotentConsumer consumer, Message message, String source, PaymentMessages payments) {
        String key = message.getHeaders() == null ? null : message.getHeaders().getFirst(KEY_HEADER);
        Optional<NewPayment> payment = payments.read(source, key, message.getData());
        if (payment.isEmpty()) {
            message.term();
            return;
        }
        AtomicReference<Payment> recorded = new AtomicReference<>();
        Settlement settlement;
        try {
            settlement = consumer.handle(message,
                    (delivered, context) -> recorded.set(payments.record(payment.get(), context)));
        } catch (RuntimeException e) {
            // The key was released; left unacknowledged, the message comes back after the ack wait.
            payments.report(source, key, "failed (" + e.getClass().getSimpleName() + "): delivered again later");
            return;
        }
        switch (settlement) {
            case DONE -> {
                if (recorded.get() != null) {
                    payments.recorded(source, key, recorded.get());
                } else {
                    payments.report(source, key, "is a duplicate: acknowledged without running");
                }
            }
            case LATER -> payments.report(source, key,
                    "is in flight elsewhere or the store is unavailable: delivered again after a delay");
            case REFUSED -> payments.report(source, key,
                    "reuses an id with another body, or has none: terminated without running");
        }
    }

    @Override
    public void close() throws Exception {
        try {
            subscription.close();
            connection.close();
        } finally {
            calls.close();
        }
    }
}
