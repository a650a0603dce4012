package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.r2dbc.R2dbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application with nothing but the starter's auto-configuration, idempotency-r2dbc and
 * Spring Boot's R2DBC (spring.r2dbc.url) and Flyway (spring.flyway.url, no {@code DataSource} bean)
 * on PostgreSQL, each test on an empty schema of its own, behind Reactor Netty and a real HTTP
 * client: it starts after its Flyway with the table created by
 * {@code idempotency.r2dbc.initialize-schema=always}, replays, counts its meters, reports {@code idempotency} UP,
 * purges an expired record by itself, joins the atomic mode's transaction with its
 * {@code @Transactional} writes, and refuses to start without its table or with a lease the atomic
 * mode cannot take.
 */
class R2dbcFreshDatabaseTest {

    /** Boot's R2DBC, kept out of the other tests' applications (src/test/resources/application.properties). */
    static final String BOOT_R2DBC = "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration";
    /** Spring Security, kept out as in every application of this module that does not test it. */
    private static final String SECURITY = String.join(",",
            "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Duration PURGE_LIMIT = Duration.ofSeconds(20);

    private final PostgresTestSchema schema = new PostgresTestSchema();
    private ConfigurableApplicationContext context;

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
        schema.close();
    }

    /** The application on the schema, Flyway on, with {@code settings} after the defaults. */
    private void start(String... settings) {
        List<String> args = new ArrayList<>(arguments(schema));
        args.addAll(List.of("--spring.flyway.enabled=true", "--spring.flyway.url=" + schema.url(),
                "--spring.flyway.user=" + PostgresTestSchema.USER,
                "--spring.flyway.password=" + PostgresTestSchema.PASSWORD,
                "--spring.flyway.locations=classpath:db/r2dbc-migration"));
        args.addAll(List.of(settings));
        context = new SpringApplication(OrdersService.class).run(args.toArray(String[]::new));
    }

    /** A test application's arguments: on {@code schema} through Boot's R2DBC, Spring Security off, health shown. */
    static List<String> arguments(PostgresTestSchema schema) {
        URI server = URI.create(schema.url().substring("jdbc:".length()));
        return List.of("--server.port=0", "--server.address=127.0.0.1",
                "--spring.autoconfigure.exclude=" + SECURITY, "--idempotency.enabled=true",
                "--idempotency.paths=/orders", "--management.endpoint.health.show-details=always",
                "--spring.r2dbc.url=r2dbc:postgresql://" + server.getHost() + ":" + server.getPort()
                        + server.getPath() + "?schema=" + schema.name,
                "--spring.r2dbc.username=" + PostgresTestSchema.USER,
                "--spring.r2dbc.password=" + PostgresTestSchema.PASSWORD);
    }

    @Test
    void onAnEmptySchemaItMigratesCreatesTheTableReplaysAndIsHealthy() throws Exception {
        start("--idempotency.r2dbc.initialize-schema=always");

        assertThat(context.getBean(IdempotencyEngine.class).blocksCaller()).as("over the R2dbcStore").isFalse();
        assertThat(context.getBean(R2dbcStore.class).tableName()).isEqualTo("idempotency_keys");
        assertThat(context.getBeanNamesForType(DataSource.class)).as("no JDBC DataSource bean").isEmpty();
        assertThat(count("SELECT count(*) FROM flyway_schema_history WHERE version = '1'")).as("its Flyway ran")
                .isEqualTo(1);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(key, "book");
        HttpResponse<String> retry = post(key, "book");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(context.getBean(OrdersController.class).runs.get()).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM orders")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM idempotency_keys WHERE state = 'COMPLETED'")).isEqualTo(1);
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        assertThat(meters.find("idempotency.requests").counters().stream().mapToDouble(Counter::count).sum())
                .as("the engine's meters, one count a request").isEqualTo(2.0);
        assertThat(meters.find("idempotency.store").timers()).isNotEmpty();

        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"idempotency\":{\"status\":\"UP\"}");

        schema.execute("DROP TABLE idempotency_keys");
        HttpResponse<String> down = get("/actuator/health");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.body())
                .contains("\"idempotency\":{\"details\":{\"reason\":\"NOT_PROVISIONED\"},\"status\":\"DOWN\"}");
    }

    @Test
    void anExpiredRecordIsPurgedByTheApplicationItself() throws Exception {
        start("--idempotency.r2dbc.initialize-schema=always", "--idempotency.ttl=2s", "--idempotency.lease=1s",
                "--idempotency.purge.interval=250ms", "--idempotency.purge.initial-delay=0s");

        assertThat(post(UUID.randomUUID().toString(), "book").statusCode()).isEqualTo(201);
        assertThat(count("SELECT count(*) FROM idempotency_keys")).isEqualTo(1);

        long deadline = System.nanoTime() + PURGE_LIMIT.toNanos();
        long left = 1;
        while (left > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100); // the application's own schedule purges it once its ttl has run out
            left = count("SELECT count(*) FROM idempotency_keys");
        }
        assertThat(left).as("the expired record, purged within " + PURGE_LIMIT).isZero();
        assertThat(count("SELECT count(*) FROM orders")).as("only records go").isEqualTo(1);
    }

    @Test
    void withoutTheTableTheStartFailsAfterFlywayNamingTheTableAndTheSetting() {
        assertThatThrownBy(() -> start())
                .hasStackTraceContaining("Idempotency schema check failed: table idempotency_keys does not exist")
                .hasStackTraceContaining("or set idempotency.r2dbc.initialize-schema=always to create it at start");
        assertThat(schema.hasTable("orders")).as("the application's Flyway ran before the check").isTrue();
        assertThat(schema.hasTable("idempotency_keys")).isFalse();
    }

    @Test
    void theAtomicModeCommitsTheTransactionalOrderWithTheRecordOrNeither() throws Exception {
        start("--idempotency.r2dbc.initialize-schema=always", "--idempotency.mode=atomic");

        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(key, "book");
        HttpResponse<String> retry = post(key, "book");
        HttpResponse<String> failed = post(UUID.randomUUID().toString(), "fail");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(context.getBean(OrdersController.class).runs.get()).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM orders")).as("the failed order rolled back").isEqualTo(1);
        assertThat(count("SELECT count(*) FROM idempotency_keys")).as("and its record").isEqualTo(1);
    }

    @Test
    void aLeaseTheAtomicModeCannotTakeOnPostgresFailsTheStartNamingIt() {
        assertThatThrownBy(() -> start("--idempotency.r2dbc.initialize-schema=always", "--idempotency.mode=atomic",
                "--idempotency.lease=2s"))
                .hasStackTraceContaining("The lease (idempotency.lease, or an engine's own IdempotencyConfig.lease) is PT2S, "
                        + "shorter than PT5S")
                .hasStackTraceContaining("idle_in_transaction_session_timeout");
    }

    private HttpResponse<String> post(String key, String item) throws Exception {
        return post(context, key, item);
    }

    /** {@code POST /orders} with {@code key} and {@code item} as a text body. */
    static HttpResponse<String> post(ConfigurableApplicationContext context, String key, String item) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(WebFluxConformanceTest.baseUri(context).resolve("/orders"))
                .header("Idempotency-Key", key).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(item)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(WebFluxConformanceTest.baseUri(context).resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private long count(String sql) throws Exception {
        return count(schema, sql);
    }

    /** The number {@code sql} counts in {@code schema}. */
    static long count(PostgresTestSchema schema, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(schema.url(), PostgresTestSchema.USER, PostgresTestSchema.PASSWORD);
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({R2dbcOrderService.Orders.class, OrdersController.class})
    static class OrdersService {
    }

    /** Places the order of the request's key in a {@code @Transactional} method, or fails after it for {@code fail}. */
    @RestController
    static class OrdersController {
        final AtomicInteger runs = new AtomicInteger();
        private final R2dbcOrderService.Orders orders;

        OrdersController(R2dbcOrderService.Orders orders) {
            this.orders = orders;
        }

        @PostMapping("/orders")
        @ResponseStatus(HttpStatus.CREATED)
        Mono<String> create(@RequestHeader("Idempotency-Key") String key, @RequestBody String item) {
            int run = runs.incrementAndGet();
            return ("fail".equals(item) ? orders.placeThenFail(key) : orders.place(key))
                    .thenReturn("{\"order\":" + run + "}");
        }
    }
}
