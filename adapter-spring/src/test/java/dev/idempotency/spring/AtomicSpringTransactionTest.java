package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import jakarta.servlet.http.HttpServletRequest;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Part of the atomic mode on Spring Boot's own H2 {@code DataSource} (HikariCP,
 * {@code DataSourceTransactionManager}), over HTTP on embedded Tomcat: a controller's
 * {@code JdbcTemplate} write and a {@code @Transactional} service's write commit with the stored
 * response, or roll back with it — with the auto-configured engine and store, the application's own
 * store bean, or its own engine; an asynchronous controller is refused; and a store on another
 * database joins nothing.
 */
class AtomicSpringTransactionTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private String url;
    private JdbcDataSource database;
    private ConfigurableApplicationContext context;
    private URI base;

    /**
     * Who builds the engine and its store: whichever, the reservation's connection is bound to the
     * data source it came from — here Spring Boot's own — so the controller's writes join it.
     */
    enum Wiring {
        AUTO_CONFIGURED,
        /** The application's own {@code JdbcStore} bean over Spring's {@code DataSource}. */
        OWN_STORE(OwnStore.class),
        /** The application's own {@code IdempotencyEngine} bean, over a {@code JdbcStore} on that data source. */
        OWN_ENGINE(OwnEngine.class);

        final Class<?>[] configuration;

        Wiring(Class<?>... configuration) {
            this.configuration = configuration;
        }
    }

    @BeforeEach
    void createDatabase() throws SQLException {
        url = "jdbc:h2:mem:atomic-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        database = new JdbcDataSource();
        database.setURL(url);
        database.setUser("sa");
        JdbcStore.builder(database).build().createTableIfMissing();
        execute("CREATE TABLE orders (id IDENTITY PRIMARY KEY, item VARCHAR(50) NOT NULL)");
        execute("CREATE TABLE audit (id IDENTITY PRIMARY KEY, item VARCHAR(50) NOT NULL)");
    }

    private void start(Wiring wiring) {
        SpringApplication application = new SpringApplication(AtomicService.class);
        application.addPrimarySources(List.of(wiring.configuration));
        context = application.run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=sa",
                "--idempotency.enabled=true",
                "--idempotency.mode=atomic",
                "--idempotency.paths=/orders,/orders/later/*");
        base = SpringConformanceTest.baseUri(context);
    }

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private long count(String table) throws SQLException {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private HttpResponse<String> post(String query, String key) throws Exception {
        return postTo("/orders" + query, key);
    }

    private HttpResponse<String> postTo(String target, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve(target))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @EnumSource(Wiring.class)
    void theOrderTheAuditRowAndTheRecordCommitTogether(Wiring wiring) throws Exception {
        start(wiring);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("", key);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(first.body()).contains("\"joined\":true");
        assertThat(count("orders")).isEqualTo(1);
        assertThat(count("audit")).isEqualTo(1);
        assertThat(count("\"" + JdbcStore.DEFAULT_TABLE + "\"")).isEqualTo(1);

        HttpResponse<String> retry = post("", key);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(count("orders")).isEqualTo(1);
        assertThat(count("audit")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Wiring.class)
    void aControllerThatFailsAfterWritingRollsBackItsWritesAndTheRecord(Wiring wiring) throws Exception {
        start(wiring);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> failed = post("?fail=true", key);
        assertThat(failed.statusCode()).isEqualTo(500);
        // Without the join, JdbcTemplate would have auto-committed both rows on a connection of its own.
        assertThat(count("orders")).isZero();
        assertThat(count("audit")).isZero();
        assertThat(count("\"" + JdbcStore.DEFAULT_TABLE + "\"")).isZero();

        HttpResponse<String> retry = post("", key);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(count("orders")).isEqualTo(1);
        assertThat(count("audit")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Wiring.class)
    void aTransactionalStepThatFailsMarksTheWholeRequestRollbackOnlyEvenWhenTheControllerCatchesIt(Wiring wiring) throws Exception {
        start(wiring);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> answered = post("?auditFails=true", key);
        assertThat(answered.statusCode()).isEqualTo(500);
        assertThat(answered.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(answered.body()).contains("idempotency_transaction_rolled_back");
        assertThat(count("orders")).isZero();
        assertThat(count("audit")).isZero();
        assertThat(count("\"" + JdbcStore.DEFAULT_TABLE + "\"")).isZero();
    }

    @ParameterizedTest
    @EnumSource(Wiring.class)
    void aTransactionalStepThatFailsIntoTheApplicationsOwnErrorAnswerKeepsThatAnswerAndStoresNothing(Wiring wiring)
            throws Exception {
        start(wiring);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> refused = post("?auditRefuses=true", key);
        assertThat(refused.statusCode()).as("the application's exception handler answers, as in Spring").isEqualTo(409);
        assertThat(refused.body()).isEqualTo("audit refused");
        assertThat(count("orders")).as("rolled back with the failed step").isZero();
        assertThat(count("audit")).isZero();
        assertThat(count("\"" + JdbcStore.DEFAULT_TABLE + "\"")).as("nothing stored").isZero();

        HttpResponse<String> retry = post("", key);
        assertThat(retry.statusCode()).as("the retry runs again").isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(count("orders")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Wiring.class)
    void withoutAKeyTheControllerWritesAsUsual(Wiring wiring) throws Exception {
        start(wiring);
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"pen\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).contains("\"joined\":false");
        assertThat(count("orders")).isEqualTo(1);
        assertThat(count("audit")).isEqualTo(1);
        assertThat(count("\"" + JdbcStore.DEFAULT_TABLE + "\"")).isZero();
    }

    /**
     * A controller answering asynchronously would write on another thread, outside the transaction
     * bound to the request's: it is refused before its work is handed over (the {@code Callable}
     * never runs), with a 500 of ours, and the key is released.
     */
    @ParameterizedTest
    @EnumSource(Wiring.class)
    void anAsynchronousControllerIsRefusedRatherThanRunOutsideTheTransaction(Wiring wiring) throws Exception {
        start(wiring);
        for (String target : List.of("/orders/later/callable", "/orders/later/future")) {
            String key = UUID.randomUUID().toString();
            HttpResponse<String> refused = postTo(target, key);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(500);
            assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                    v -> assertThat(v).startsWith("application/problem+json"));
            assertThat(refused.body()).contains("idempotency_async_not_atomic");
            assertThat(postTo(target, key).statusCode()).as("released: refused again, not 409 or 410").isEqualTo(500);
        }
        assertThat(count("orders")).as("the Callable never ran").isZero();
        assertThat(count("\"" + JdbcStore.DEFAULT_TABLE + "\"")).isZero();
    }

    @Test
    void aStoreOnAnotherDatabaseJoinsNothingThere() throws Exception {
        JdbcDataSource elsewhere = new JdbcDataSource();
        elsewhere.setURL("jdbc:h2:mem:elsewhere-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        elsewhere.setUser("sa");
        JdbcStore store = JdbcStore.builder(elsewhere).build();
        store.createTableIfMissing();
        SpringApplication application = new SpringApplication(AtomicService.class);
        application.addInitializers(c -> ((org.springframework.context.support.GenericApplicationContext) c)
                .registerBean(Store.class, () -> store));
        context = application.run("--server.port=0", "--server.address=127.0.0.1", "--spring.main.banner-mode=off",
                "--spring.datasource.url=" + url, "--spring.datasource.username=sa", "--idempotency.enabled=true",
                "--idempotency.mode=atomic", "--idempotency.paths=/orders");
        base = SpringConformanceTest.baseUri(context);

        HttpResponse<String> failed = post("?fail=true", UUID.randomUUID().toString());
        assertThat(failed.statusCode()).isEqualTo(500);
        // JdbcTemplate on Spring's data source is outside the reservation's transaction on the other database
        assertThat(count("orders")).as("written on a connection of its own, auto-committed").isEqualTo(1);
        HttpResponse<String> ok = post("", UUID.randomUUID().toString());
        assertThat(ok.statusCode()).isEqualTo(201);
        assertThat(ok.body()).contains("\"joined\":false");
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {
        @Bean
        Store store(DataSource dataSource) {
            return JdbcStore.builder(dataSource).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEngine {
        @Bean(destroyMethod = "close")
        IdempotencyEngine engine(DataSource dataSource) {
            return new IdempotencyEngine(JdbcStore.builder(dataSource).build(),
                    IdempotencyConfig.builder().mode(dev.idempotency.core.Mode.ATOMIC).build());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({OrdersController.class, Audit.class})
    static class AtomicService {
    }

    @RestController
    static class OrdersController {
        private final JdbcTemplate jdbc;
        private final Audit audit;
        private final DataSource dataSource;

        OrdersController(JdbcTemplate jdbc, Audit audit, DataSource dataSource) {
            this.jdbc = jdbc;
            this.audit = audit;
            this.dataSource = dataSource;
        }

        @PostMapping("/orders")
        ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> order,
                                                   @RequestParam(defaultValue = "false") boolean fail,
                                                   @RequestParam(defaultValue = "false") boolean auditFails,
                                                   @RequestParam(defaultValue = "false") boolean auditRefuses,
                                                   HttpServletRequest request) {
            // Spring's current connection for the data source is the atomic reservation's own
            Connection reservation = IdempotentRequests.execution(request)
                    .flatMap(execution -> execution.unwrap(Connection.class)).orElse(null);
            boolean joined = reservation != null && DataSourceUtils.getConnection(dataSource) == reservation;
            String item = String.valueOf(order.get("item"));
            jdbc.update("INSERT INTO orders (item) VALUES (?)", item);
            if (auditRefuses) {
                audit.refuse(item); // its exception propagates to the handler below
            }
            try {
                audit.record(item, auditFails);
            } catch (IllegalStateException e) {
                // swallowed on purpose: the participating transaction is rollback-only all the same
            }
            if (fail) {
                throw new IllegalStateException("failed after writing, on purpose");
            }
            Long orders = jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class);
            return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("item", item, "orders", orders, "joined", joined));
        }

        @PostMapping("/orders/later/callable")
        Callable<Map<String, Object>> later(@RequestBody Map<String, Object> order) {
            return () -> {
                jdbc.update("INSERT INTO orders (item) VALUES (?)", String.valueOf(order.get("item")));
                return Map.of("later", true);
            };
        }

        @PostMapping("/orders/later/future")
        CompletableFuture<Map<String, Object>> future() {
            return CompletableFuture.completedFuture(Map.of("later", true));
        }

        @ExceptionHandler(Refused.class)
        ResponseEntity<String> refused(Refused e) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(e.getMessage());
        }
    }

    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    @Service
    static class Audit {
        private final JdbcTemplate jdbc;

        Audit(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public void refuse(String item) {
            jdbc.update("INSERT INTO audit (item) VALUES (?)", item);
            throw new Refused("audit refused");
        }

        @Transactional
        public void record(String item, boolean fail) {
            jdbc.update("INSERT INTO audit (item) VALUES (?)", item);
            if (fail) {
                throw new IllegalStateException("audit failed, on purpose");
            }
        }
    }
}
