package dev.idempotency.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A JetStream stream of its own on the local NATS server ({@code IDEMPOTENCY_TEST_NATS_URL}, else
 * nats://127.0.0.1:4222), named with a random suffix, in memory, deleted on {@link #close()} with its
 * consumers; and the connections opened through it.
 */
final class TestStream implements AutoCloseable {

    private static final String SERVER = System.getenv().getOrDefault("IDEMPOTENCY_TEST_NATS_URL",
            "nats://127.0.0.1:4222");

    final String name;
    final String subject;
    final Connection connection;
    private final List<Connection> connections = new ArrayList<>();

    /**
     * @param duplicateWindow JetStream's own deduplication window of {@code Nats-Msg-Id} on publish
     */
    TestStream(Duration duplicateWindow) throws IOException, InterruptedException, JetStreamApiException {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        this.name = "idem_" + suffix;
        this.subject = "idem." + suffix;
        this.connection = connect();
        connection.jetStreamManagement().addStream(StreamConfiguration.builder().name(name).subjects(subject)
                .storageType(StorageType.Memory).duplicateWindow(duplicateWindow).build());
    }

    /** Another connection, as another instance of the application would have. */
    Connection connect() throws IOException, InterruptedException {
        Connection opened = Nats.connect(new Options.Builder().server(SERVER).build());
        connections.add(opened);
        return opened;
    }

    JetStreamManagement management() throws IOException {
        return connection.jetStreamManagement();
    }

    /** A durable consumer with explicit acknowledgement, never giving up on a message. */
    ConsumerConfiguration.Builder consumer(String durable, Duration ackWait) {
        return ConsumerConfiguration.builder().durable(durable).ackPolicy(AckPolicy.Explicit).ackWait(ackWait)
                .maxDeliver(-1);
    }

    /** Adds a durable pull consumer and binds a subscription of {@code on} to it. */
    JetStreamSubscription pull(Connection on, String durable, Duration ackWait)
            throws IOException, JetStreamApiException {
        if (!management().getConsumerNames(name).contains(durable)) {
            management().addOrUpdateConsumer(name, consumer(durable, ackWait).build());
        }
        return on.jetStream().subscribe(null, PullSubscribeOptions.bind(name, durable));
    }

    ConsumerInfo info(String durable) throws IOException, JetStreamApiException {
        return management().getConsumerInfo(name, durable);
    }

    /** Publishes {@code body} with {@code header: key} ({@code key} null: no header). */
    PublishAck publish(String header, String key, String body) throws IOException, JetStreamApiException {
        Headers headers = new Headers();
        if (key != null) {
            headers.add(header, key);
        }
        return connection.jetStream().publish(NatsMessage.builder().subject(subject).headers(headers)
                .data(body.getBytes(StandardCharsets.UTF_8)).build());
    }

    @Override
    public void close() throws Exception {
        try {
            management().deleteStream(name);
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
    }
}
