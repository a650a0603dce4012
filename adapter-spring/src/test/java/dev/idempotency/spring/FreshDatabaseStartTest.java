package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot application on embedded Tomcat starts on an empty database with the store's
 * default settings (the schema check on) whichever way its schema comes: its own Flyway with its own
 * {@code V1} and {@code idempotency.jdbc.initialize-schema=always} (or our files copied as its next
 * versions), its own Liquibase changelog with our include, or an in-memory H2 and nothing else; then a keyed POST runs once and replays. The
 * health component follows the table.
 */
class FreshDatabaseStartTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<AutoCloseable> closing = new ArrayList<>();
    private ConfigurableApplicationContext context;

    @AfterEach
    void stop() throws Exception {
        if (context != null) {
            context.close();
        }
        for (AutoCloseable resource : closing) {
            resource.close();
        }
    }

    private PostgresTestSchema freshSchema() {
        PostgresTestSchema schema = new PostgresTestSchema();
        closing.add(schema);
        return schema;
    }

    private void start(String... settings) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off", "--idempotency.enabled=true", "--idempotency.paths=/orders",
                "--management.endpoint.health.show-details=always"));
        args.addAll(List.of(settings));
        context = SpringApplication.run(OrdersService.class, args.toArray(String[]::new));
    }

    private static String[] postgres(PostgresTestSchema schema, String... settings) {
        List<String> args = new ArrayList<>(List.of("--spring.datasource.url=" + schema.url(),
                "--spring.datasource.username=" + PostgresTestSchema.USER,
                "--spring.datasource.password=" + PostgresTestSchema.PASSWORD));
        args.addAll(List.of(settings));
        return args.toArray(String[]::new);
    }

    @Test
    void flywayWithItsOwnV1AndInitializeSchemaAlways() throws Exception {
        PostgresTestSchema schema = freshSchema();
        start(postgres(schema, "--spring.flyway.enabled=true", "--idempotency.jdbc.initialize-schema=always"));

        assertRunsOnceThenReplays();
        assertThat(schema.hasTable("orders")).isTrue();
        assertThat(schema.hasTable("flyway_schema_history")).isTrue();
    }

    @Test
    void flywayWithTheShippedFilesCopiedAsItsNextVersions(@TempDir Path migrations) throws Exception {
        copy("db/migration/V1__app_orders.sql", migrations.resolve("V1__app_orders.sql"));
        copy("db/idempotency/postgresql/V1__idempotency_keys.sql", migrations.resolve("V2__idempotency_keys.sql"));
        copy("db/idempotency/postgresql/V3__idempotency_keys_fillfactor.sql",
                migrations.resolve("V3__idempotency_keys_fillfactor.sql"));
        copy("db/idempotency/postgresql/V4__idempotency_keys_caller.sql",
                migrations.resolve("V4__idempotency_keys_caller.sql"));
        PostgresTestSchema schema = freshSchema();
        start(postgres(schema, "--spring.flyway.enabled=true", "--spring.flyway.locations=filesystem:" + migrations));

        assertRunsOnceThenReplays();
        assertThat(schema.hasTable("orders")).isTrue();
    }

    private static void copy(String resource, Path target) throws Exception {
        try (InputStream in = FreshDatabaseStartTest.class.getClassLoader().getResourceAsStream(resource)) {
            Files.copy(in, target);
        }
    }

    @Test
    void flywayWithoutTheTableFailsTheStartAfterFlywayRanNamingTheTable() {
        PostgresTestSchema schema = freshSchema();
        Throwable failure = catchThrowable(() -> start(postgres(schema, "--spring.flyway.enabled=true")));
        assertThat(failure).hasStackTraceContaining("Idempotency schema check failed: table idempotency_keys does not exist");
        assertThat(schema.hasTable("orders")).as("the application's Flyway ran before the check").isTrue();

        FailureAnalysis analysis = new MissingTableFailureAnalyzer().analyze(failure);
        assertThat(analysis.getDescription()).as("Boot's report, not a stack trace")
                .startsWith("Idempotency schema check failed: table idempotency_keys does not exist")
                .endsWith("or set idempotency.jdbc.initialize-schema=always to create it at start");
        assertThat(analysis.getAction()).startsWith("Add the table to your migrations");
    }

    @Test
    void liquibaseWithItsOwnChangelogIncludingOurs() throws Exception {
        PostgresTestSchema schema = freshSchema();
        start(postgres(schema, "--spring.liquibase.enabled=true",
                "--spring.liquibase.change-log=classpath:db/changelog/app-changelog.xml"));

        assertRunsOnceThenReplays();
        assertThat(schema.hasTable("orders")).isTrue();
        assertThat(schema.hasTable("databasechangelog")).isTrue();
    }

    @Test
    void anInMemoryH2WithNoMigrationToolGetsTheTable() throws Exception {
        start("--spring.datasource.url=jdbc:h2:mem:fresh-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

        assertRunsOnceThenReplays();
    }

    @Test
    void healthIsUpThenDownWithTheReasonWhenTheTableIsGone() throws Exception {
        PostgresTestSchema schema = freshSchema();
        start(postgres(schema, "--idempotency.jdbc.initialize-schema=always"));

        HttpResponse<String> up = get("/actuator/health");
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(component(up, "idempotency")).isEqualTo(Map.of("status", "UP"));

        schema.execute("DROP TABLE idempotency_keys");
        HttpResponse<String> down = get("/actuator/health");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(component(down, "idempotency"))
                .isEqualTo(Map.of("status", "DOWN", "details", Map.of("reason", "NOT_PROVISIONED")));
    }

    @Test
    void theHealthComponentCanBeTurnedOff() throws Exception {
        start("--spring.datasource.url=jdbc:h2:mem:fresh-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                "--management.health.idempotency.enabled=false");

        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(component(health, "db")).isNotNull();
        assertThat(component(health, "idempotency")).isNull();
    }

    private void assertRunsOnceThenReplays() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(key);
        HttpResponse<String> again = post(key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(context.getBean(OrdersController.class).runs.get()).isEqualTo(1);
    }

    private HttpResponse<String> post(String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base().resolve("/orders")).header("Idempotency-Key", key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base().resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> component(HttpResponse<String> health, String name) throws Exception {
        Map<String, Object> components = (Map<String, Object>) JSON.readValue(health.body(), Map.class).get("components");
        return (Map<String, Object>) components.get(name);
    }

    private URI base() {
        return SpringConformanceTest.baseUri(context);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(OrdersController.class)
    static class OrdersService {
    }

    @RestController
    static class OrdersController {

        final AtomicInteger runs = new AtomicInteger();

        @PostMapping("/orders")
        ResponseEntity<String> create(@RequestBody String body) {
            return ResponseEntity.status(HttpStatus.CREATED).body("{\"order\":" + runs.incrementAndGet() + "}");
        }
    }
}
