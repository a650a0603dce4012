package dev.idempotency.examples.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.Tenants;
import io.nats.client.Subscription;
import io.nats.client.api.ConsumerInfo;
import java.nio.charset.StandardCharsets;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The payments consumer on the local RabbitMQ (127.0.0.1:5672) and NATS (127.0.0.1:4222), or
 * {@code RABBITMQ_URL} / {@code NATS_URL}: a queue and a stream of its own per test (random names,
 * deleted after), the example's embedded H2 database, in the reserve and atomic modes. Messages are
 * published through {@link PaymentPublisher}, the path {@code ./examples/run consumer publish} takes:
 * a payment, its duplicate, and another body under its id give one payment, an acknowledgement
 * without running, and a rejection; and through the main class's {@code publish} in a process of its own.
 */
class ConsumerExampleTest {

    private static final String PAYMENT = "{\"amount\":100}";
    private static final String OTHER_BODY = "{\"amount\":999,\"outcome\":\"failed\"}";

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private TestBrokers test;
    private ConsumerSettings brokers;
    private ExampleApp app;
    private ConsumerExample example;

    @BeforeEach
    void names() throws Exception {
        test = new TestBrokers();
        brokers = test.settings;
    }

    private void start(String mode) throws Exception {
        app = ExampleApp.create(ExampleSettings.from(Map.of("IDEMPOTENCY_MODE", mode)));
        example = ConsumerExample.start(app, brokers, lines::add);
        assertThat(example.startupLine()).contains("queue " + brokers.queue(), "stream " + brokers.stream(),
                "mode: " + mode).doesNotContain("guest:guest");
    }

    @AfterEach
    void delete() throws Exception {
        try {
            if (example != null) {
                example.close();
            }
        } finally {
            test.close();
        }
    }

    /** {@code ./examples/run consumer ARGS} without the script: the main class in a JVM of its own. */
    private Process commandLine(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ConsumerExample.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(test.env);
        Process process = builder.start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the publisher exits").isTrue();
        return process;
    }

    private static String output(InputStream stream) throws Exception {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    }

    private List<String> awaitLines(int count) {
        await().atMost(Duration.ofSeconds(20)).until(() -> lines.size() >= count);
        return List.copyOf(lines);
    }

    private String deadLetter() throws java.io.IOException {
        return new String(test.channel.basicGet(brokers.deadLetterQueue(), true).getBody(), StandardCharsets.UTF_8);
    }

    private List<Payment> payments() {
        return app.repository().payments(Tenants.DEFAULT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"reserve", "atomic"})
    void rabbitmqRecordsAPaymentOncePerMessageId(String mode) throws Exception {
        start(mode);
        String source = "rabbitmq " + brokers.queue();

        PaymentPublisher.publish(brokers, "rabbitmq", "pay-0001-rabbit", PAYMENT);
        PaymentPublisher.publish(brokers, "rabbitmq", "pay-0001-rabbit", PAYMENT);
        PaymentPublisher.publish(brokers, "rabbitmq", "pay-0001-rabbit", OTHER_BODY);
        PaymentPublisher.publish(brokers, "rabbitmq", "pay-0002-rabbit", "{\"amount\":-5}");

        assertThat(awaitLines(4)).containsExactly(
                source + ": message pay-… recorded payment 1 (amount 100, succeeded)",
                source + ": message pay-… is a duplicate: acknowledged without running",
                source + ": message pay-… reuses an id with another body, or has none: rejected without running (to the dead-letter queue)",
                source + ": message pay-… is not a payment (\"amount\" must be a positive whole number): refused without running");
        assertThat(payments()).containsExactly(new Payment(1, 100, "succeeded"));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(test.ready(brokers.deadLetterQueue())).isEqualTo(2);
            assertThat(test.ready(brokers.queue())).isZero();
        });
        assertThat(List.of(deadLetter(), deadLetter())).containsExactly(OTHER_BODY, "{\"amount\":-5}");
        assertThat(lines).hasSize(4);
    }

    @Test
    void publishesFromTheCommandLine() throws Exception {
        start("reserve");

        Process rabbitmq = commandLine("publish", "rabbitmq", "payment-cli-1", PAYMENT);
        assertThat(rabbitmq.exitValue()).isZero();
        assertThat(output(rabbitmq.getInputStream())).startsWith("Published 14 bytes to RabbitMQ queue " + brokers.queue());
        assertThat(awaitLines(1)).containsExactly(
                "rabbitmq " + brokers.queue() + ": message paym… recorded payment 1 (amount 100, succeeded)");
        Process nats = commandLine("publish", "nats", "payment-cli-1", PAYMENT);
        assertThat(nats.exitValue()).isZero();
        assertThat(output(nats.getInputStream())).startsWith("Published 14 bytes to NATS subject " + brokers.subject());
        Process unknown = commandLine("publish", "kafka", "payment-cli-1", PAYMENT);
        assertThat(unknown.exitValue()).isEqualTo(2);
        assertThat(output(unknown.getErrorStream())).startsWith("usage: ./examples/run consumer publish rabbitmq|nats");

        assertThat(awaitLines(2)).endsWith(
                "nats " + brokers.stream() + ": message paym… recorded payment 2 (amount 100, succeeded)");
        assertThat(payments()).hasSize(2);
    }

    @Test
    void anUnreachableBrokerStopsTheStartWithOneLine() {
        Map<String, String> env = new HashMap<>(test.env);
        env.put("NATS_URL", "nats://127.0.0.1:1");
        ExampleApp unstarted = ExampleApp.create(ExampleSettings.defaults());

        assertThatThrownBy(() -> ConsumerExample.start(unstarted, ConsumerSettings.from(env), lines::add))
                .isInstanceOf(UnreachableBroker.class)
                .hasMessage("NATS cannot be reached at nats://127.0.0.1:1 (IOException): start it, or set NATS_URL");
        assertThatThrownBy(() -> unstarted.repository().payments(Tenants.DEFAULT))
                .as("the example's pool was closed").isInstanceOf(RuntimeException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"reserve", "atomic"})
    void natsRecordsAPaymentOncePerMessageId(String mode) throws Exception {
        start(mode);
        String source = "nats " + brokers.stream();
        Subscription terminations = test.nats.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED."
                + brokers.stream() + "." + NatsPayments.CONSUMER);
        test.nats.flush(Duration.ofSeconds(5));

        assertThat(PaymentPublisher.publish(brokers, "nats", "pay-0001-nats", PAYMENT)).contains("sequence 1,");
        assertThat(PaymentPublisher.publish(brokers, "nats", "pay-0001-nats", PAYMENT)).contains("sequence 2,");
        assertThat(PaymentPublisher.publish(brokers, "nats", "pay-0001-nats", OTHER_BODY)).contains("sequence 3,");

        assertThat(awaitLines(3)).containsExactly(
                source + ": message pay-… recorded payment 1 (amount 100, succeeded)",
                source + ": message pay-… is a duplicate: acknowledged without running",
                source + ": message pay-… reuses an id with another body, or has none: terminated without running");
        assertThat(payments()).containsExactly(new Payment(1, 100, "succeeded"));
        assertThat(terminations.nextMessage(Duration.ofSeconds(5))).as("a termination advisory").isNotNull();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            ConsumerInfo info = test.natsConsumer();
            assertThat(info.getNumAckPending()).isZero();
            assertThat(info.getNumPending()).isZero();
        });
        assertThat(lines).hasSize(3);
    }
}
