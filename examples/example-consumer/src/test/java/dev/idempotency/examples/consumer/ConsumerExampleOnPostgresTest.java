package dev.idempotency.examples.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.PostgresTestSchema;
import io.nats.client.api.ConsumerInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two instances of the payments consumer in the atomic mode on one PostgreSQL schema (a throwaway
 * one), both on the same queue and the same durable JetStream consumer: each of 20 payments is
 * published three times to each broker, and every payment row commits with its idempotency record
 * exactly once — 40 rows, 40 records, every copy acknowledged, nothing dead-lettered or terminated.
 */
class ConsumerExampleOnPostgresTest {

    private static final int PAYMENTS = 20;
    private static final int COPIES = 3;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private PostgresTestSchema schema;
    private TestBrokers test;
    private ConsumerExample first;
    private ConsumerExample second;

    @BeforeEach
    void start() throws Exception {
        schema = new PostgresTestSchema();
        test = new TestBrokers();
        Map<String, String> env = Map.of("DATABASE_URL", schema.postgresqlUrl(), "IDEMPOTENCY_MODE", "atomic");
        first = ConsumerExample.start(ExampleApp.create(ExampleSettings.from(env)), test.settings, lines::add);
        second = ConsumerExample.start(ExampleApp.create(ExampleSettings.from(env)), test.settings, lines::add);
    }

    @AfterEach
    void stop() throws Exception {
        try (PostgresTestSchema dropped = schema; TestBrokers deleted = test) {
            first.close();
            second.close();
        }
    }

    private long lines(String containing) {
        return lines.stream().filter(line -> line.contains(containing)).count();
    }

    @Test
    void twoInstancesRecordEachPaymentOnceWithItsRecord() throws Exception {
        for (int copy = 0; copy < COPIES; copy++) {
            for (int i = 1; i <= PAYMENTS; i++) {
                String body = "{\"amount\":" + i + "}";
                test.publishRabbitmq("payment-rabbitmq-" + i, body);
                test.publishNats("payment-nats-" + i, body);
            }
        }

        // every copy is acknowledged once: recorded, or a duplicate (a copy in flight is requeued first)
        await().atMost(Duration.ofSeconds(40)).until(
                () -> lines(" recorded payment ") + lines(" is a duplicate: ") == 2L * PAYMENTS * COPIES);
        assertThat(lines(" recorded payment ")).isEqualTo(2L * PAYMENTS);
        assertThat(lines("without running")).isEqualTo(2L * PAYMENTS * (COPIES - 1));
        assertThat(schema.queryLong("SELECT count(*) FROM example_payments")).isEqualTo(2L * PAYMENTS);
        assertThat(schema.queryLong("SELECT sum(amount) FROM example_payments")).isEqualTo(2L * PAYMENTS * (PAYMENTS + 1) / 2);
        assertThat(schema.queryLong("SELECT count(DISTINCT amount) FROM example_payments")).isEqualTo(PAYMENTS);
        assertThat(schema.queryLong("SELECT count(*) FROM idempotency_keys")).isEqualTo(2L * PAYMENTS);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(test.ready(test.settings.queue())).isZero();
            ConsumerInfo info = test.natsConsumer();
            assertThat(info.getNumAckPending()).isZero();
            assertThat(info.getNumPending()).isZero();
        });
        assertThat(test.ready(test.settings.deadLetterQueue())).isZero();
        assertThat(lines).noneMatch(line -> line.contains("rejected") || line.contains("terminated")
                || line.contains("failed"));
    }
}
