package dev.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * The atomic mode on PostgreSQL: the handler's write goes through the call's transaction
 * ({@code context.unwrap(Connection.class)}) and commits with the record's outcome, so the effects are
 * exactly the distinct records — duplicates on other partitions and consumers, and a handler that fails
 * after writing (rolled back, redelivered, run again), included.
 */
class PostgresAtomicRecordsTest {

    private static final String TOPIC = TestBroker.uniqueName("payments");
    private static final String GROUP = TestBroker.uniqueName("payments-app");
    private static final int PARTITIONS = 4;

    private static PostgresTestSchema schema;
    private static HikariDataSource pool;
    private static IdempotentCalls calls;

    @BeforeAll
    static void open() {
        TestBroker.createTopic(TOPIC, PARTITIONS);
        schema = new PostgresTestSchema();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(schema.url());
        config.setUsername(PostgresTestSchema.USER);
        config.setPassword(PostgresTestSchema.PASSWORD);
        config.setMaximumPoolSize(6);
        pool = new HikariDataSource(config);
        JdbcStore store = JdbcStore.create(pool);
        store.createTableIfMissing();
        schema.execute("CREATE TABLE payments (id BIGSERIAL PRIMARY KEY, payment_key VARCHAR(100) NOT NULL, "
                + "body TEXT NOT NULL)");
        calls = new IdempotentCalls(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build());
    }

    @AfterAll
    static void close() {
        calls.close();
        pool.close();
        schema.close();
        TestBroker.deleteTopics(TOPIC);
    }

    @Test
    void theHandlersWritesCommitWithTheRecordExactlyOnce() throws SQLException {
        int distinct = 20;
        IdempotentRecords records = IdempotentRecords.of(calls);
        AtomicInteger failedOnce = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        ConcurrentMessageListenerContainer<String, String> container = TestConsumers.start(TOPIC, GROUP, 2, PARTITIONS,
                record -> {
                    try {
                        records.handle(record, context -> {
                            runs.incrementAndGet();
                            String key = new String(
                                    record.headers().lastHeader(IdempotentRecords.DEFAULT_KEY_HEADER).value(),
                                    StandardCharsets.UTF_8);
                            Connection transaction = context.unwrap(Connection.class).orElseThrow();
                            try (PreparedStatement insert = transaction.prepareStatement(
                                    "INSERT INTO payments (payment_key, body) VALUES (?, ?)")) {
                                insert.setString(1, key);
                                insert.setString(2, record.value());
                                insert.executeUpdate();
                            }
                            // payment 7 fails after its write the first time: rolled back, redelivered, run again
                            if (key.equals("payment-7") && failedOnce.getAndIncrement() == 0) {
                                throw new IllegalStateException("the gateway timed out");
                            }
                        });
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }, IdempotentRecords.configure(new DefaultErrorHandler()));
        try {
            List<ProducerRecord<String, String>> sent = new ArrayList<>();
            for (int copy = 0; copy < 2; copy++) {
                for (int i = 0; i < distinct; i++) {
                    sent.add(TestBroker.record(TOPIC, (i + copy) % PARTITIONS, "payment-" + i, "{\"cents\":" + (100 + i) + "}"));
                }
            }
            TestBroker.send(sent);

            await().atMost(TestBroker.PATIENCE).untilAsserted(() ->
                    assertThat(TestBroker.committed(GROUP, TOPIC)).isEqualTo(TestBroker.endOffsets(TOPIC, PARTITIONS)));
        } finally {
            container.stop();
        }
        assertThat(count("SELECT count(*) FROM payments")).isEqualTo(distinct);
        assertThat(count("SELECT count(DISTINCT payment_key) FROM payments")).isEqualTo(distinct);
        assertThat(failedOnce.get()).isGreaterThanOrEqualTo(2);
        assertThat(runs.get()).isEqualTo(distinct + 1);
    }

    private static long count(String sql) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement query = c.prepareStatement(sql);
             ResultSet rs = query.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
