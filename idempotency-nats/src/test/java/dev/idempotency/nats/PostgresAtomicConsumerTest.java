package dev.idempotency.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import dev.idempotency.core.call.CallContext;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.Settlement;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The atomic mode on PostgreSQL: the handler's write through the call's transaction and the record
 * commit together, so the rows written are exactly the distinct messages, however many copies two
 * workers receive; a handler that throws after writing leaves no row, and its redelivery writes one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresAtomicConsumerTest {

    private static final int IDS = 20;

    private PostgresTestSchema schema;
    private HikariDataSource pool;
    private JdbcStore store;
    private TestStream stream;
    private IdempotentCalls calls;

    @BeforeAll
    void openDatabase() {
        schema = new PostgresTestSchema();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(schema.url());
        config.setUsername(PostgresTestSchema.USER);
        config.setPassword(PostgresTestSchema.PASSWORD);
        config.setMaximumPoolSize(6);
        config.setPoolName("nats-atomic");
        pool = new HikariDataSource(config);
        store = JdbcStore.create(pool);
        store.createTableIfMissing();
        schema.execute("CREATE TABLE shipments (id BIGSERIAL PRIMARY KEY, order_id VARCHAR(100) NOT NULL)");
    }

    @AfterAll
    void closeDatabase() {
        pool.close();
        schema.close();
    }

    @BeforeEach
    void open() throws Exception {
        stream = new TestStream(Duration.ofMinutes(2));
        calls = new IdempotentCalls(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build());
        schema.execute("TRUNCATE shipments");
    }

    @AfterEach
    void close() throws Exception {
        calls.close();
        stream.close();
    }

    /** The handler's effect: one shipment row, on the call's own connection. */
    private static void ship(Message message, CallContext context) throws SQLException {
        Connection connection = context.unwrap(Connection.class).orElseThrow();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO shipments (order_id) VALUES (?)")) {
            insert.setString(1, new String(message.getData(), StandardCharsets.UTF_8));
            insert.executeUpdate();
        }
    }

    private long rows(String sql) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement count = c.prepareStatement(sql);
             ResultSet rs = count.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void twoWorkersWriteOneRowPerDistinctMessage() throws Exception {
        int published = 0;
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < IDS; i++) {
                if (copy == 0 || i % 2 == 0) {
                    stream.publish("Order-Id", "order-" + i, "order-" + i);
                    published++;
                }
            }
        }
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).keyHeader("Order-Id")
                .redeliveryDelay(Duration.ofMillis(100)).build();

        try (PullWorkers workers = new PullWorkers(consumer, PostgresAtomicConsumerTest::ship, List.of(
                stream.pull(stream.connection, "workers", Duration.ofSeconds(10)),
                stream.pull(stream.connect(), "workers", Duration.ofSeconds(10))))) {
            int expected = published;
            await().atMost(Duration.ofSeconds(30)).until(() -> workers.settled(Settlement.DONE) == expected
                    || workers.failure.get() != null);
            assertThat(workers.failure.get()).isNull();
        }

        assertThat(rows("SELECT count(*) FROM shipments")).isEqualTo(IDS);
        assertThat(rows("SELECT count(DISTINCT order_id) FROM shipments")).isEqualTo(IDS);
        assertThat(stream.info("workers").getNumAckPending()).isZero();
    }

    @Test
    void aHandlerThatThrowsAfterWritingLeavesNoRowAndItsRedeliveryWritesOne() throws Exception {
        stream.publish("Order-Id", "order-x", "order-x");
        IdempotentConsumer consumer = IdempotentConsumer.builder(calls).keyHeader("Order-Id").build();
        var subscription = stream.pull(stream.connection, "retrying", Duration.ofSeconds(1));

        Message first = subscription.fetch(1, Duration.ofSeconds(5)).get(0);
        assertThatThrownBy(() -> consumer.handle(first, (message, context) -> {
            ship(message, context);
            throw new IllegalStateException("carrier refused");
        })).hasMessage("carrier refused");
        assertThat(rows("SELECT count(*) FROM shipments")).isZero();

        Message again = subscription.fetch(1, Duration.ofSeconds(5)).get(0);
        assertThat(again.metaData().deliveredCount()).isEqualTo(2);
        assertThat(consumer.handle(again, PostgresAtomicConsumerTest::ship)).isEqualTo(Settlement.DONE);
        assertThat(rows("SELECT count(*) FROM shipments")).isEqualTo(1);
    }
}
