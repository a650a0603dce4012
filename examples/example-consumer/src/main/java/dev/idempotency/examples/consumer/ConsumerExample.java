package dev.idempotency.examples.consumer;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.store.Store;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import java.util.function.Consumer;

/**
 * The example's payments arriving as messages: from a RabbitMQ queue ({@code idempotency-amqp}) and a
 * NATS JetStream stream ({@code idempotency-nats}), each recorded once per message id in the example's
 * database, with the HTTP examples' store and mode ({@code DATABASE_URL}, {@code REDIS_URL},
 * {@code IDEMPOTENCY_MODE}; brokers: {@link ConsumerSettings}). {@code ./examples/run consumer}
 * starts it; {@code ./examples/run consumer publish ...} publishes a message ({@link PaymentPublisher}).
 */
public final class ConsumerExample implements AutoCloseable {

    private final ExampleApp app;
    private final ConsumerSettings brokers;
    private final RabbitPayments rabbit;
    private final NatsPayments nats;

    private ConsumerExample(ExampleApp app, ConsumerSettings brokers, RabbitPayments rabbit, NatsPayments nats) {
        this.app = app;
        this.brokers = brokers;
        this.rabbit = rabbit;
        this.nats = nats;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("publish")) {
            if (args.length != 4) {
                exit(PaymentPublisher.USAGE);
            }
            try {
                System.out.println(PaymentPublisher.publish(brokersOrExit(), args[1], args[2], args[3]));
            } catch (IllegalArgumentException e) {
                exit(e.getMessage());
            } catch (UnreachableBroker e) {
                exit("Cannot publish: " + e.getMessage());
            }
            return;
        }
        if (args.length > 0) {
            exit("usage: ./examples/run consumer [publish rabbitmq|nats <message-id> '<json body>']");
        }
        ExampleSettings settings = ExampleSettings.fromEnvironmentOrExit(s -> {
            if (!s.idempotencyEnabled()) {
                throw new IllegalArgumentException("IDEMPOTENCY=off: the payments consumer always deduplicates");
            }
        });
        ConsumerSettings brokers = brokersOrExit();
        ConsumerExample example;
        try {
            example = start(ExampleApp.create(settings), brokers, System.out::println);
        } catch (UnreachableBroker e) {
            exit("Cannot start the example: " + e.getMessage());
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(example::close, "example-shutdown"));
        System.out.println(example.startupLine());
    }

    /**
     * Starts consuming from both brokers (declaring the queue and stream if missing); {@code out}
     * receives one line per message. Closing it closes {@code app}; so does a failed start.
     *
     * @throws IllegalStateException when the store has no blocking face
     */
    public static ConsumerExample start(ExampleApp app, ConsumerSettings brokers, Consumer<String> out) throws Exception {
        RabbitPayments rabbit = null;
        try {
            Store store = app.blockingStore().orElseThrow(() -> new IllegalStateException(
                    "The payments consumer needs a blocking store (JDBC or Redis)"));
            IdempotencyConfig config = ExampleApp.engineConfig(app.settings().mode());
            PaymentMessages payments = new PaymentMessages(app, out);
            rabbit = RabbitPayments.start(store, config, brokers, payments);
            NatsPayments nats = NatsPayments.start(store, config, brokers, payments);
            return new ConsumerExample(app, brokers, rabbit, nats);
        } catch (Exception e) {
            if (rabbit != null) {
                rabbit.close();
            }
            app.close();
            throw e;
        }
    }

    /** The one line printed on start: where it consumes, which store and mode, a command to try. */
    public String startupLine() {
        return "Payments consumer example consuming RabbitMQ queue " + brokers.queue() + " at "
                + ConsumerSettings.display(brokers.rabbitmqUrl()) + " and NATS stream " + brokers.stream()
                + " (subject " + brokers.subject() + ") at " + ConsumerSettings.display(brokers.natsUrl())
                + " | " + app.idempotencyDescription()
                + " | try: ./examples/run consumer publish rabbitmq payment-0001 '{\"amount\":100}'";
    }

    /** Stops both consumers, then closes the example's database and store. */
    @Override
    public void close() {
        try (ExampleApp closing = app) {
            try (RabbitPayments r = rabbit; NatsPayments n = nats) {
                // closed by the try
            }
        } catch (Exception e) {
            System.err.println("Closing the payments consumer failed: " + e.getClass().getSimpleName());
        }
    }

    private static ConsumerSettings brokersOrExit() {
        try {
            return ConsumerSettings.from(System.getenv());
        } catch (IllegalArgumentException e) {
            exit("Cannot start the example: " + e.getMessage());
            throw e; // not reached
        }
    }

    private static void exit(String message) {
        System.err.println(message);
        System.exit(2);
    }
}
