package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@link IdempotentMethod} in the atomic mode on PostgreSQL, with Spring Boot's own data source and
 * transaction manager and the auto-configured {@code JdbcStore}: a {@code @Transactional} method's
 * {@code JdbcTemplate} writes are made in the call's transaction, so they commit with the record, and
 * roll back with it — when the method throws, when its result cannot be stored, when a
 * {@code @Transactional} method it called marked the transaction rollback-only; concurrent
 * duplicates wait for the first and get its result, with one write.
 */
class IdempotentMethodPostgresTest {

    record Order(String id, String item) {
    }

    record Placed(String id, long orders, long recordsSeenInside) {
    }

    /** A value whose JSON cannot be written. */
    static final class Opaque {

        public String getValue() {
            throw new IllegalStateException("not readable");
        }
    }

    /** The annotated bean; its writes go through Spring's JdbcTemplate. */
    static class Orders {

        private final JdbcTemplate jdbc;
        private final Audit audit;
        private final AtomicInteger runs = new AtomicInteger();

        Orders(JdbcTemplate jdbc, Audit audit) {
            this.jdbc = jdbc;
            this.audit = audit;
        }

        public int runs() {
            return runs.get();
        }

        @IdempotentMethod(scope = "orders", key = "#order.id")
        @Transactional
        public Placed place(Order order) throws InterruptedException {
            runs.incrementAndGet();
            jdbc.update("INSERT INTO orders (item) VALUES (?)", order.item());
            if (order.item().equals("refused")) {
                throw new IllegalArgumentException("refused");
            }
            if (order.item().equals("slow")) {
                Thread.sleep(200); // holds the transaction while the duplicates arrive
            }
            // the call's own record, reserved in this same transaction and not committed yet
            Long records = jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_keys", Long.class);
            Long orders = jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class);
            return new Placed(order.id(), orders, records);
        }

        /** A result the codec cannot encode. */
        @IdempotentMethod(scope = "orders.opaque", key = "#order.id")
        @Transactional
        public Opaque placeOpaque(Order order) {
            runs.incrementAndGet();
            jdbc.update("INSERT INTO orders (item) VALUES (?)", order.item());
            return new Opaque();
        }

        /** Not itself transactional: an audit that fails is caught here, after it marked the transaction. */
        @IdempotentMethod(scope = "orders.audited", key = "#order.id")
        public String placeAudited(Order order) {
            runs.incrementAndGet();
            jdbc.update("INSERT INTO orders (item) VALUES (?)", order.item());
            try {
                audit.fail();
            } catch (IllegalStateException ignored) {
                // the caller goes on; the transaction is rollback-only all the same
            }
            return order.id();
        }
    }

    static class Audit {

        @Transactional(propagation = Propagation.REQUIRED)
        public void fail() {
            throw new IllegalStateException("audit failed");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Audit audit() {
            return new Audit();
        }

        @Bean
        Orders orders(JdbcTemplate jdbc, Audit audit) {
            return new Orders(jdbc, audit);
        }
    }

    private static PostgresTestSchema schema;
    private ConfigurableApplicationContext context;
    private Orders orders;

    @BeforeAll
    static void createSchema() {
        schema = new PostgresTestSchema();
        schema.execute("CREATE TABLE orders (id SERIAL PRIMARY KEY, item VARCHAR(50) NOT NULL)");
    }

    @AfterAll
    static void dropSchema() {
        schema.close();
    }

    @BeforeEach
    void start() {
        schema.execute("DROP TABLE IF EXISTS idempotency_keys");
        schema.execute("TRUNCATE orders");
        SpringApplication spring = new SpringApplication(Application.class);
        spring.setWebApplicationType(WebApplicationType.NONE);
        context = spring.run("--spring.main.banner-mode=off",
                "--spring.datasource.url=" + schema.url(),
                "--spring.datasource.username=" + PostgresTestSchema.USER,
                "--spring.datasource.password=" + PostgresTestSchema.PASSWORD,
                "--idempotency.enabled=true",
                "--idempotency.mode=atomic",
                "--idempotency.in-flight-wait=20s",
                "--idempotency.jdbc.initialize-schema=always");
        orders = context.getBean(Orders.class);
    }

    @AfterEach
    void stop() {
        context.close();
    }

    private static long count(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(schema.url(), PostgresTestSchema.USER, PostgresTestSchema.PASSWORD);
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void theMethodsWriteAndTheRecordCommitTogether() throws Exception {
        Placed first = orders.place(new Order("o-1", "book"));

        assertThat(first.recordsSeenInside()).as("the method's transaction is the call's: it sees the reserved record")
                .isEqualTo(1);
        assertThat(first.orders()).isEqualTo(1);
        assertThat(count("orders")).isEqualTo(1);
        assertThat(count("idempotency_keys")).isEqualTo(1);

        assertThat(orders.place(new Order("o-1", "book"))).isEqualTo(first);
        assertThat(orders.runs()).isEqualTo(1);
        assertThat(count("orders")).isEqualTo(1);
    }

    @Test
    void aMethodThatThrowsRollsBackItsWriteWithTheRecord() throws Exception {
        assertThatThrownBy(() -> orders.place(new Order("o-1", "refused")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("refused");

        assertThat(count("orders")).isZero();
        assertThat(count("idempotency_keys")).isZero();
        assertThatThrownBy(() -> orders.place(new Order("o-1", "refused"))).as("the key was released: it runs again")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(orders.runs()).isEqualTo(2);
    }

    @Test
    void aResultThatCannotBeStoredRollsBackTheCommittedLookingWrite() throws Exception {
        assertThatThrownBy(() -> orders.placeOpaque(new Order("o-1", "book"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Opaque.class.getName());

        assertThat(count("orders")).as("the @Transactional method took part: its write went with the call's rollback")
                .isZero();
        assertThat(count("idempotency_keys")).isZero();
    }

    @Test
    void aTransactionMarkedRollbackOnlyRollsBackAndReleasesTheKey() throws Exception {
        assertThatThrownBy(() -> orders.placeAudited(new Order("o-1", "book")))
                .isInstanceOf(UnexpectedRollbackException.class);

        assertThat(count("orders")).isZero();
        assertThat(count("idempotency_keys")).isZero();
        assertThat(orders.runs()).isEqualTo(1);
    }

    @Test
    void concurrentDuplicatesWaitForTheFirstAndGetItsResultWithOneWrite() throws Exception {
        int threads = 8;
        String id = "o-" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<Placed>> calls = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                calls.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return orders.place(new Order(id, "slow"));
                }));
            }
            List<Placed> results = new ArrayList<>();
            for (Future<Placed> call : calls) {
                results.add(call.get(30, TimeUnit.SECONDS));
            }

            assertThat(orders.runs()).isEqualTo(1);
            assertThat(count("orders")).isEqualTo(1);
            assertThat(results).hasSize(threads).containsOnly(new Placed(id, 1, 1));
        } finally {
            pool.shutdownNow();
        }
    }
}
