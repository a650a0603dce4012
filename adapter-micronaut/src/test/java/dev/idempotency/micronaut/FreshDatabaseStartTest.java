package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Micronaut application on Netty starts on an empty database with the store's default settings
 * (the schema check on), its data source configured under {@code datasources.default}, whichever way
 * its schema comes: micronaut-flyway with its own {@code V1} and
 * {@code idempotency.jdbc.initialize-schema: always} (or our files copied as its next versions),
 * micronaut-liquibase with its own changelog including ours, or an in-memory H2 and nothing else;
 * then a keyed POST runs once and replays.
 */
class FreshDatabaseStartTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final List<AutoCloseable> closing = new ArrayList<>();
    private ApplicationContext context;

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

    private void start(Map<String, Object> settings) {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "micronaut.server.port", -1,
                "micronaut.server.host", "127.0.0.1",
                "idempotency.enabled", true,
                "idempotency.paths", List.of("/widgets"),
                "test.routes", "adapter"));
        properties.putAll(settings);
        context = ApplicationContext.run(EmbeddedServer.class, properties).getApplicationContext();
    }

    private static Map<String, Object> postgres(PostgresTestSchema schema, Map<String, Object> settings) {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "datasources.default.url", schema.url(),
                "datasources.default.username", PostgresTestSchema.USER,
                "datasources.default.password", PostgresTestSchema.PASSWORD,
                "datasources.default.driver-class-name", "org.postgresql.Driver"));
        properties.putAll(settings);
        return properties;
    }

    @Test
    void flywayWithItsOwnV1AndInitializeSchemaAlways() throws Exception {
        PostgresTestSchema schema = freshSchema();
        start(postgres(schema, Map.of("flyway.datasources.default.enabled", true,
                "idempotency.jdbc.initialize-schema", "always")));

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
        start(postgres(schema, Map.of("flyway.datasources.default.enabled", true,
                "flyway.datasources.default.locations", "filesystem:" + migrations)));

        assertRunsOnceThenReplays();
        assertThat(schema.hasTable("orders")).isTrue();
    }

    @Test
    void flywayWithoutTheTableFailsTheStartAfterFlywayRanNamingTheTable() {
        PostgresTestSchema schema = freshSchema();

        assertThatThrownBy(() -> start(postgres(schema, Map.of("flyway.datasources.default.enabled", true))))
                .hasStackTraceContaining("Idempotency schema check failed: table idempotency_keys does not exist");
        assertThat(schema.hasTable("orders")).as("the application's Flyway ran before the check").isTrue();
    }

    @Test
    void liquibaseWithItsOwnChangelogIncludingOurs() throws Exception {
        PostgresTestSchema schema = freshSchema();
        start(postgres(schema, Map.of("liquibase.datasources.default.change-log",
                "classpath:db/changelog/app-changelog.xml")));

        assertRunsOnceThenReplays();
        assertThat(schema.hasTable("orders")).isTrue();
        assertThat(schema.hasTable("databasechangelog")).isTrue();
    }

    @Test
    void anInMemoryH2WithNoMigrationToolGetsTheTable() throws Exception {
        start(Map.of("datasources.default.url", "jdbc:h2:mem:fresh-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                "datasources.default.username", "sa", "datasources.default.password", "",
                "datasources.default.driver-class-name", "org.h2.Driver"));

        assertRunsOnceThenReplays();
    }

    private static void copy(String resource, Path target) throws Exception {
        try (InputStream in = FreshDatabaseStartTest.class.getClassLoader().getResourceAsStream(resource)) {
            Files.copy(in, target);
        }
    }

    private void assertRunsOnceThenReplays() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(key);
        HttpResponse<String> again = post(key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(context.getBean(AdapterTestController.class).runs("widgets")).isEqualTo(1);
    }

    private HttpResponse<String> post(String key) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + context.getBean(EmbeddedServer.class).getPort() + "/widgets");
        return HTTP.send(HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"bolt\",\"count\":3}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
