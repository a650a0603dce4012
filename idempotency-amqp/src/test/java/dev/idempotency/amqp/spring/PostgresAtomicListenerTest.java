package dev.idempotency.amqp.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.amqp.RabbitQueue;
import dev.idempotency.amqp.spring.SpringListeners.Fate;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
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
import org.springframework.amqp.core.Message;

/**
 * The atomic mode on PostgreSQL under a {@code @RabbitListener}: the listener writes through
 * {@link IdempotentListenerAdvice#context()}'s connection, which commits with the record.
 */
class PostgresAtomicListenerTest {

    private PostgresTestSchema schema;
    private HikariDataSource pool;
    private RabbitQueue queue;
    private IdempotentListenerAdvice advice;
    private SpringListeners app;

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
        queue = new RabbitQueue("amqp-spring-atomic");
        advice = IdempotentListenerAdvice.builder(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build())
                .requeueDelay(Duration.ofMillis(20)).build();
    }

    @AfterEach
    void close() throws Exception {
        if (app != null) {
            app.close();
        }
        advice.close();
        queue.close();
        pool.close();
        schema.close();
    }

    private static void write(Message message) throws Exception {
        Connection connection = IdempotentListenerAdvice.context().orElseThrow().unwrap(Connection.class).orElseThrow();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO effects (body) VALUES (?)")) {
            insert.setString(1, new String(message.getBody()));
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
        app = new SpringListeners(queue, advice, 3, 4, message -> {
            app.ran(message);
            write(message);
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

        await().atMost(Duration.ofSeconds(30)).until(() -> app.count(Fate.DONE) == 3L * distinct);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < distinct; i++) {
            expected.add(String.format("body-%02d", i));
        }
        assertThat(effects()).containsExactlyElementsOf(expected);
        assertThat(app.totalRuns()).isEqualTo(distinct);
        assertThat(IdempotentListenerAdvice.context()).as("outside a listener").isEmpty();
    }

    @Test
    void aFailedListenersWriteRollsBackAndTheRedeliveryWritesOnce() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        app = new SpringListeners(queue, advice, 1, 1, message -> {
            write(message);
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("declined after writing");
            }
        });
        queue.publish("flaky-1", "flaky");

        await().atMost(Duration.ofSeconds(20)).until(() -> app.count(Fate.DONE) == 1);
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(app.count(Fate.FAILED)).isEqualTo(1);
        assertThat(effects()).containsExactly("flaky");
    }
}
