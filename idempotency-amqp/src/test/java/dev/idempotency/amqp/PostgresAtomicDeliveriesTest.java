package dev.idempotency.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The atomic mode on PostgreSQL: the handler's write, through the call's transaction, commits with the
 * record — the effects are the distinct messages exactly, and a failed handler's write rolls back.
 */
class PostgresAtomicDeliveriesTest {

    private PostgresTestSchema schema;
    private HikariDataSource pool;
    private RabbitQueue queue;
    private IdempotentDeliveries deliveries;

    @BeforeEach
    void open() throws Exception {
        schema = new PostgresTestSchema();
        schema.execute("CREATE TABLE effects (id BIGSERIAL PRIMARY KEY, body VARCHAR(100) NOT NULL)");
        pool = new HikariDataSource();
        pool.setJdbcUrl(schema.url());
        pool.setUsername(PostgresTestSchema.USER);
        pool.setPassword(PostgresTestSchema.PASSWORD);
        pool.setMaximumPoolSize(10);
        JdbcStore store = JdbcStore.create(pool);
        store.createTableIfMissing();
        queue = new RabbitQueue("amqp-atomic");
        deliveries = IdempotentDeliveries.builder(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build(), "orders")
                .requeueDelay(Duration.ofMillis(20)).build();
    }

    @AfterEach
    void close() throws Exception {
        deliveries.close();
        queue.close();
        pool.close();
        schema.close();
    }

    private static void write(Connection connection, String body) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO effects (body) VALUES (?)")) {
            insert.setString(1, body);
            insert.executeUpdate();
        }
    }

    private List<String> effects() throws Exception {
        List<String> bodies = new ArrayList<>();
        try (Connection c = pool.getConnection(); PreparedStatement select = c.prepareStatement(
                "SELECT body FROM effects ORDER BY body"); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                bodies.add(rs.getString(1));
            }
        }
        return bodies;
    }

    @Test
    void theEffectsAreTheDistinctMessagesExactly() throws Exception {
        int distinct = 25;
        Consumers consumers = new Consumers();
        consumers.start(queue, 3, 4, deliveries, (delivery, context) -> {
            consumers.ran(delivery);
            write(context.unwrap(Connection.class).orElseThrow(), new String(delivery.getBody()));
        });
        List<Integer> order = new ArrayList<>();
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < distinct; i++) {
                order.add(i);
            }
        }
        Collections.shuffle(order);
        for (int i : order) {
            queue.publish("pay-" + i, String.format("body-%02d", i));
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> consumers.count(Settlement.DONE) == 3L * distinct);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < distinct; i++) {
            expected.add(String.format("body-%02d", i));
        }
        assertThat(effects()).containsExactlyElementsOf(expected);
        assertThat(consumers.totalRuns()).isEqualTo(distinct);
    }

    @Test
    void aFailedHandlersWriteRollsBackAndTheRedeliveryWritesOnce() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        Consumers consumers = new Consumers();
        consumers.start(queue, 1, 1, deliveries, (delivery, context) -> {
            write(context.unwrap(Connection.class).orElseThrow(), "flaky");
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("declined after writing");
            }
        });
        queue.publish("flaky-1", "flaky");

        await().atMost(Duration.ofSeconds(20)).until(() -> consumers.count(Settlement.DONE) == 1);
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(consumers.failures.get()).isEqualTo(1);
        assertThat(effects()).containsExactly("flaky");
    }
}
