package dev.idempotency.examples.consumer;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the payments consumer takes its messages from, read from the environment (blank values count
 * as unset); the database and the idempotency store are {@code ExampleSettings}'.
 *
 * @param rabbitmqUrl {@code RABBITMQ_URL}, default {@code amqp://guest:guest@127.0.0.1:5672}
 * @param natsUrl     {@code NATS_URL}, default {@code nats://127.0.0.1:4222}
 * @param queue       {@code PAYMENTS_QUEUE}, default {@code payments}; its dead letters go to
 *                    {@code <queue>.dead}
 * @param stream      {@code PAYMENTS_STREAM}, default {@code PAYMENTS}
 * @param subject     {@code PAYMENTS_SUBJECT}, default {@code payments.new}
 */
public record ConsumerSettings(String rabbitmqUrl, String natsUrl, String queue, String stream, String subject) {

    /** A queue's name is also the scope of its keys: 1 to 95 letters, digits and {@code - . _ ~}. */
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9._~-]{1,95}");
    private static final Pattern STREAM = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern SUBJECT = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");

    public ConsumerSettings {
        check(rabbitmqUrl, "RABBITMQ_URL", "amqp", "amqps");
        check(natsUrl, "NATS_URL", "nats", "tls");
        if (!QUEUE.matcher(queue).matches()) {
            throw new IllegalArgumentException("PAYMENTS_QUEUE must be 1 to 95 letters, digits and '-', '.', '_', '~'");
        }
        if (!STREAM.matcher(stream).matches()) {
            throw new IllegalArgumentException("PAYMENTS_STREAM must be 1 to 64 letters, digits, '-' and '_'");
        }
        if (!SUBJECT.matcher(subject).matches()) {
            throw new IllegalArgumentException("PAYMENTS_SUBJECT must be a subject without wildcards, e.g. payments.new");
        }
    }

    /** @throws IllegalArgumentException naming the variable whose value makes no sense */
    public static ConsumerSettings from(Map<String, String> env) {
        return new ConsumerSettings(value(env, "RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672"),
                value(env, "NATS_URL", "nats://127.0.0.1:4222"), value(env, "PAYMENTS_QUEUE", "payments"),
                value(env, "PAYMENTS_STREAM", "PAYMENTS"), value(env, "PAYMENTS_SUBJECT", "payments.new"));
    }

    /** The queue that receives what {@link #queue()} rejects. */
    public String deadLetterQueue() {
        return queue + ".dead";
    }

    /** A URL as the start-up line shows it: without its user information (a password). */
    static String display(String url) {
        try {
            URI uri = new URI(url);
            return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static void check(String url, String name, String... schemes) {
        try {
            URI uri = new URI(url);
            if (uri.getHost() == null || !List.of(schemes).contains(uri.getScheme())) {
                throw new IllegalArgumentException(name + " must be " + schemes[0] + "://host:port");
            }
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(name + " is not a URL, e.g. " + schemes[0] + "://127.0.0.1", e);
        }
    }

    private static String value(Map<String, String> env, String name, String fallback) {
        return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty()).orElse(fallback);
    }
}
