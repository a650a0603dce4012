package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.jdbc.internal.PostgresSql;
import dev.idempotency.r2dbc.R2dbcStore;
import dev.idempotency.testkit.internal.AtOnce;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The atomic mode over {@link R2dbcStore} on PostgreSQL (a schema of its own), behind a real Netty
 * server: the handler's order, written through Spring's {@code DatabaseClient} (directly or in a
 * {@code @Transactional} method), commits with the stored response or rolls back with it.
 */
class R2dbcAtomicModeTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final AtomicInteger EXECUTIONS = new AtomicInteger();
    /** Each response's own number (no UUID on an event loop: SecureRandom blocks, and BlockHound watches). */
    private static final AtomicLong ORDER_NUMBERS = new AtomicLong();

    private static PostgresTestSchema schema;
    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void start() {
        schema = new PostgresTestSchema();
        // idempotency-jdbc's DDL over JDBC: R2dbcStore.createTableIfMissing reads it on an event loop.
        PostgresSql.forTable(R2dbcStore.DEFAULT_TABLE).ddl(false, false, null).forEach(schema::execute);
        schema.execute("CREATE TABLE orders (idempotency_key TEXT NOT NULL)");
        context = new SpringApplication(R2dbcService.class).run("--server.port=0", "--server.address=127.0.0.1",
                "--idempotency.enabled=true", "--idempotency.paths=/orders,/checked-orders", "--schema=" + schema.name);
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        schema.close();
    }

    @Test
    void theStoredResponseAndTheOrderCommitTogether() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = EXECUTIONS.get();

        HttpResponse<String> first = post("/orders", key);
        HttpResponse<String> retry = post("/orders", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(EXECUTIONS.get() - before).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE key = ? AND state = 'COMPLETED'", key))
                .isEqualTo(1);
    }

    @Test
    void twentyDuplicatesAtOnceRunTheHandlerOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = EXECUTIONS.get();

        List<HttpResponse<String>> responses = AtOnce.run(20, () -> post("/orders?delayMs=300", key));

        assertThat(EXECUTIONS.get() - before).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isEqualTo(1);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(201));
        assertThat(responses.stream().filter(r -> r.headers().firstValue("Idempotent-Replayed").isEmpty()))
                .hasSize(1);
    }

    @Test
    void aHandlerThatWritesThenFailsLeavesNeitherTheOrderNorARecord() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = EXECUTIONS.get();

        HttpResponse<String> failed = post("/orders?fail=true", key);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isZero();
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE key = ?", key)).isZero();

        HttpResponse<String> retry = post("/orders", key);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(EXECUTIONS.get() - before).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isEqualTo(1);
    }

    /** The handler swallows its {@code @Transactional} method's failure and answers 201: nothing commits. */
    @Test
    void aFailedTransactionalMethodRollsTheWholeRequestBack() throws Exception {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> answered = post("/checked-orders", key);

        assertThat(answered.statusCode()).isEqualTo(500);
        assertThat(answered.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(answered.body()).contains("Transaction rolled back");
        assertThat(count("SELECT count(*) FROM orders WHERE idempotency_key = ?", key)).isZero();
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE key = ?", key)).isZero();
    }

    private static long count(String sql, String key) throws Exception {
        try (var c = DriverManager.getConnection(schema.url(), PostgresTestSchema.USER, PostgresTestSchema.PASSWORD);
             var statement = c.prepareStatement(sql)) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static HttpResponse<String> post(String path, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = DataSourceAutoConfiguration.class)
    @EnableTransactionManagement
    static class R2dbcService {

        @Bean(destroyMethod = "dispose")
        ConnectionPool connectionPool(org.springframework.core.env.Environment env) {
            URI server = URI.create(schema.url().substring("jdbc:".length()));
            ConnectionFactory postgres = new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                    .host(server.getHost()).port(server.getPort()).database(server.getPath().substring(1))
                    .username(PostgresTestSchema.USER).password(PostgresTestSchema.PASSWORD)
                    .schema(env.getRequiredProperty("schema")).build());
            // Waiting duplicates hold a connection each: room for twenty of them and the winner.
            return new ConnectionPool(ConnectionPoolConfiguration.builder(postgres).maxSize(24)
                    .maxAcquireTime(Duration.ofSeconds(5)).build());
        }

        @Bean
        R2dbcStore r2dbcStore(ConnectionPool pool) {
            return R2dbcStore.create(pool);
        }

        @Bean(destroyMethod = "close")
        IdempotencyEngine idempotencyEngine(R2dbcStore store) {
            return new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.ATOMIC)
                    .inFlightWait(Duration.ofSeconds(10)).build());
        }

        @Bean
        DatabaseClient databaseClient(ConnectionPool pool) {
            return DatabaseClient.create(pool);
        }

        @Bean
        ReactiveTransactionManager transactionManager(ConnectionPool pool) {
            return new R2dbcTransactionManager(pool);
        }

        @Bean
        Orders orders(DatabaseClient db) {
            return new Orders(db);
        }

        @Bean
        OrderController orderController(DatabaseClient db, Orders orders) {
            return new OrderController(db, orders);
        }
    }

    /** A {@code @Transactional} (REQUIRED) service: it joins the request's transaction. */
    static class Orders {
        private final DatabaseClient db;

        Orders(DatabaseClient db) {
            this.db = db;
        }

        @Transactional
        public Mono<Void> placeThenFail(String key) {
            return insert(db, key).then(Mono.error(new IllegalStateException("out of stock")));
        }
    }

    static Mono<Void> insert(DatabaseClient db, String key) {
        return db.sql("INSERT INTO orders (idempotency_key) VALUES (:key)").bind("key", key).then();
    }

    @RestController
    static class OrderController {
        private final DatabaseClient db;
        private final Orders orders;

        OrderController(DatabaseClient db, Orders orders) {
            this.db = db;
            this.orders = orders;
        }

        @PostMapping("/orders")
        @ResponseStatus(HttpStatus.CREATED)
        Mono<String> place(@RequestHeader("Idempotency-Key") String key,
                           @RequestParam(defaultValue = "0") long delayMs,
                           @RequestParam(defaultValue = "false") boolean fail) {
            Mono<Void> delay = delayMs > 0 ? Mono.delay(Duration.ofMillis(delayMs)).then() : Mono.empty();
            return delay.then(Mono.fromRunnable(EXECUTIONS::incrementAndGet))
                    .then(insert(db, key))
                    .then(fail ? Mono.error(new IllegalStateException("payment declined"))
                            : Mono.just("{\"order\":" + ORDER_NUMBERS.incrementAndGet() + "}"));
        }

        @PostMapping("/checked-orders")
        @ResponseStatus(HttpStatus.CREATED)
        Mono<String> placeChecked(@RequestHeader("Idempotency-Key") String key) {
            return orders.placeThenFail(key).thenReturn("{\"order\":\"placed\"}")
                    .onErrorResume(IllegalStateException.class, e -> Mono.just("{\"order\":\"placed anyway\"}"));
        }
    }
}
