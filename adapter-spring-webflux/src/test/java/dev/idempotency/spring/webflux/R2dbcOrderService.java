package dev.idempotency.spring.webflux;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.r2dbc.R2dbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
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
 * A WebFlux service in the atomic mode over {@link R2dbcStore} on PostgreSQL: its orders are
 * written with {@code DatabaseClient}, directly or in a {@code @Transactional} method. Run in the
 * test's JVM ({@link R2dbcAtomicModeTest}) or as a process of its own ({@link #main}, for
 * {@link R2dbcCrashTest}), on a schema given by {@link #arguments}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(exclude = DataSourceAutoConfiguration.class)
@EnableTransactionManagement
class R2dbcOrderService {

    /** How many times the handler of {@code /orders} ran, in this JVM. */
    static final AtomicInteger EXECUTIONS = new AtomicInteger();
    /** How many {@code @Transactional} writes of {@code /transactional-orders} returned, in this JVM. */
    static final AtomicInteger TRANSACTIONAL_WRITES = new AtomicInteger();
    /** Each response's own number (no UUID on an event loop: SecureRandom blocks, and BlockHound watches). */
    private static final AtomicLong ORDER_NUMBERS = new AtomicLong();

    /** Starts the service and prints {@code PORT=<port>} once it listens. */
    public static void main(String[] args) {
        ConfigurableApplicationContext context = new SpringApplication(R2dbcOrderService.class).run(args);
        System.out.println("PORT=" + WebFluxConformanceTest.baseUri(context).getPort());
    }

    /** The service's arguments on {@code schema}, its connections named {@code name} (pg_stat_activity's application_name). */
    static String[] arguments(PostgresTestSchema schema, String name) {
        return new String[] {"--server.port=0", "--server.address=127.0.0.1", "--idempotency.enabled=true",
                "--idempotency.paths=/orders,/checked-orders,/transactional-orders", "--orders.jdbc-url=" + schema.url(),
                "--orders.schema=" + schema.name, "--orders.name=" + name};
    }

    /** The orders' table, over JDBC; the store creates its own ({@link #r2dbcStore}). */
    static void createTables(PostgresTestSchema schema) {
        schema.execute("CREATE TABLE orders (idempotency_key TEXT NOT NULL)");
    }

    @Bean(destroyMethod = "dispose")
    ConnectionPool connectionPool(Environment env) {
        URI server = URI.create(env.getRequiredProperty("orders.jdbc-url").substring("jdbc:".length()));
        ConnectionFactory postgres = new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                .host(server.getHost()).port(server.getPort()).database(server.getPath().substring(1))
                .username(PostgresTestSchema.USER).password(PostgresTestSchema.PASSWORD)
                .schema(env.getRequiredProperty("orders.schema"))
                .applicationName(env.getRequiredProperty("orders.name")).build());
        // Waiting duplicates hold a connection each: room for twenty of them and the winner.
        return new ConnectionPool(ConnectionPoolConfiguration.builder(postgres).maxSize(24)
                .maxAcquireTime(Duration.ofSeconds(5)).build());
    }

    /**
     * The store, its table created if missing: the DDL statements run on the connections' event loop,
     * where BlockHound (installed for the test run) fails any blocking call, such as reading a resource.
     */
    @Bean
    R2dbcStore r2dbcStore(ConnectionPool pool) {
        return storeWithItsTable(pool);
    }

    /** A store on {@code factory}, its table created if missing (waited for: call it while the application starts). */
    static R2dbcStore storeWithItsTable(ConnectionFactory factory) {
        R2dbcStore store = R2dbcStore.create(factory);
        store.createTableIfMissing().toCompletableFuture().join();
        return store;
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

    /** A {@code @Transactional} (REQUIRED) service: it joins the request's transaction. */
    static class Orders {
        private final DatabaseClient db;

        Orders(DatabaseClient db) {
            this.db = db;
        }

        @Transactional
        public Mono<Void> place(String key) {
            return insert(db, key);
        }

        @Transactional
        public Mono<Void> placeThenFail(String key) {
            return insert(db, key).then(Mono.error(new IllegalStateException("out of stock")));
        }
    }

    static Mono<Void> insert(DatabaseClient db, String key) {
        return db.sql("INSERT INTO orders (idempotency_key) VALUES (:key)").bind("key", key).then();
    }

    /** Registered as a member class of the configuration. */
    @RestController
    static class OrderController {
        private final DatabaseClient db;
        private final Orders orders;

        OrderController(DatabaseClient db, Orders orders) {
            this.db = db;
            this.orders = orders;
        }

        /**
         * Waits {@code delayMs}, writes the order, waits {@code holdMs} (inside the transaction),
         * then answers 201 — or fails with {@code fail}.
         */
        @PostMapping("/orders")
        @ResponseStatus(HttpStatus.CREATED)
        Mono<String> place(@RequestHeader("Idempotency-Key") String key,
                           @RequestParam(defaultValue = "0") long delayMs,
                           @RequestParam(defaultValue = "0") long holdMs,
                           @RequestParam(defaultValue = "false") boolean fail) {
            return pause(delayMs).then(Mono.fromRunnable(EXECUTIONS::incrementAndGet))
                    .then(insert(db, key))
                    .then(pause(holdMs))
                    .then(fail ? Mono.error(new IllegalStateException("payment declined"))
                            : Mono.just("{\"order\":" + ORDER_NUMBERS.incrementAndGet() + "}"));
        }

        private static Mono<Void> pause(long millis) {
            return millis > 0 ? Mono.delay(Duration.ofMillis(millis)).then() : Mono.empty();
        }

        /** The order written in a {@code @Transactional} method, then {@code holdMs} before the answer. */
        @PostMapping("/transactional-orders")
        @ResponseStatus(HttpStatus.CREATED)
        Mono<String> placeTransactional(@RequestHeader("Idempotency-Key") String key,
                                        @RequestParam(defaultValue = "0") long holdMs) {
            return orders.place(key).then(Mono.fromRunnable(TRANSACTIONAL_WRITES::incrementAndGet))
                    .then(pause(holdMs)).thenReturn("{\"order\":\"placed\"}");
        }

        @PostMapping("/checked-orders")
        @ResponseStatus(HttpStatus.CREATED)
        Mono<String> placeChecked(@RequestHeader("Idempotency-Key") String key) {
            return orders.placeThenFail(key).thenReturn("{\"order\":\"placed\"}")
                    .onErrorResume(IllegalStateException.class, e -> Mono.just("{\"order\":\"placed anyway\"}"));
        }
    }
}
