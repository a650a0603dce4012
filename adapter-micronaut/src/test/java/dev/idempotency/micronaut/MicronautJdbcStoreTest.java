package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.jdbc.JdbcStore;
import io.micronaut.context.ApplicationContext;
import io.micronaut.inject.qualifiers.Qualifiers;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * The adapter's JDBC wiring over real HTTP: a {@code JdbcStore} built from {@code idempotency.jdbc.*}
 * over the application's {@code DataSource} bean (an embedded H2 database per test), its table
 * created there by default, and the schema check that fails the start — of that store and of the
 * application's own.
 */
class MicronautJdbcStoreTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static JdbcDataSource freshDatabase() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:micronaut-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    private static JdbcDataSource databaseWithTable(String table) {
        JdbcDataSource dataSource = freshDatabase();
        JdbcStore.builder(dataSource).tableName(table).build().createTableIfMissing();
        return dataSource;
    }

    private static ApplicationContext start(Map<String, Object> extra, Object... singletons) {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "micronaut.server.port", -1,
                "micronaut.server.host", "127.0.0.1",
                "idempotency.enabled", true,
                "idempotency.paths", List.of("/widgets"),
                "test.routes", "adapter"));
        properties.putAll(extra);
        ApplicationContext context = ApplicationContext.builder().properties(properties).singletons(singletons).start();
        context.getBean(EmbeddedServer.class).start();
        return context;
    }

    private static HttpResponse<String> post(ApplicationContext context, String key) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + context.getBean(EmbeddedServer.class).getPort() + "/widgets");
        return HTTP.send(HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"bolt\",\"count\":3}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long rows(DataSource dataSource, String table) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM \"" + table + "\"")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The schema check's exception, wherever Micronaut's bean-creation exceptions put it in the chain. */
    private static Throwable schemaFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IllegalStateException && String.valueOf(c.getMessage()).startsWith("Idempotency schema")) {
                return c;
            }
        }
        return t;
    }

    @Test
    void aDataSourceBeanAndNoStoreBeanGiveAJdbcStoreWithTheConfiguredTable() throws Exception {
        JdbcDataSource dataSource = databaseWithTable("shop_idempotency");
        try (ApplicationContext context = start(Map.of("idempotency.jdbc.table-name", "shop_idempotency",
                "idempotency.jdbc.statement-timeout", "2s"), dataSource)) {
            HttpResponse<String> first = post(context, "jdbc-1");
            HttpResponse<String> retry = post(context, "jdbc-1");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(context.getBean(AdapterTestController.class).runs("widgets")).isEqualTo(1);
            assertThat(rows(dataSource, "shop_idempotency")).as("the record is in the database").isEqualTo(1);
        }
    }

    @Test
    void theNamedDataSourceIsTheOneUsedWhenThereAreSeveral() throws Exception {
        JdbcDataSource orders = freshDatabase();
        JdbcDataSource records = databaseWithTable("idempotency_keys");
        ApplicationContext context = ApplicationContext.builder().properties(Map.of(
                "micronaut.server.port", -1, "micronaut.server.host", "127.0.0.1",
                "idempotency.enabled", true, "idempotency.paths", List.of("/widgets"),
                "idempotency.jdbc.datasource", "records", "test.routes", "adapter")).build();
        context.registerSingleton(DataSource.class, orders, Qualifiers.byName("orders"));
        context.registerSingleton(DataSource.class, records, Qualifiers.byName("records"));
        try (ApplicationContext started = context.start()) {
            started.getBean(EmbeddedServer.class).start();

            assertThat(post(started, "named-1").statusCode()).isEqualTo(201);
            assertThat(post(started, "named-1").headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(rows(records, "idempotency_keys")).isEqualTo(1);
        }
    }

    @Test
    void anEmbeddedDatabaseGetsTheTableByDefault() throws Exception {
        JdbcDataSource dataSource = freshDatabase();
        try (ApplicationContext context = start(Map.of(), dataSource)) {
            assertThat(post(context, "embedded-1").statusCode()).isEqualTo(201);
            assertThat(rows(dataSource, "idempotency_keys")).isEqualTo(1);
        }
    }

    @Test
    void aMissingTableFailsTheStartNamingIt() {
        JdbcDataSource dataSource = freshDatabase();

        assertThatThrownBy(() -> start(Map.of("idempotency.jdbc.initialize-schema", "never"), dataSource))
                .satisfies(e -> assertThat(schemaFailure(e)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("Idempotency schema check failed: table idempotency_keys does not exist"));
    }

    @Test
    void anUnknownInitializeSchemaValueFailsTheStartNamingIt() {
        JdbcDataSource dataSource = freshDatabase();

        assertThatThrownBy(() -> start(Map.of("idempotency.jdbc.initialize-schema", "sometimes"), dataSource))
                .hasStackTraceContaining("idempotency.jdbc.initialize-schema must be embedded, always or never, "
                        + "not 'sometimes'");
    }

    @Test
    void theApplicationsOwnJdbcStoreBeanIsCheckedToo() throws Exception {
        JdbcDataSource dataSource = databaseWithTable("idempotency_keys");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE \"idempotency_keys\" DROP COLUMN \"response_body\"");
        }
        JdbcStore own = JdbcStore.builder(dataSource).build();

        assertThatThrownBy(() -> start(Map.of(), own))
                .satisfies(e -> assertThat(schemaFailure(e)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("has no column response_body"));
    }

    @Test
    void withTheCheckOffAMissingTableStartsAndIsAnswered503PerRequest() throws Exception {
        JdbcDataSource dataSource = freshDatabase();
        try (ApplicationContext context = start(Map.of("idempotency.jdbc.verify-schema", false,
                "idempotency.jdbc.initialize-schema", "never"), dataSource)) {
            HttpResponse<String> response = post(context, "no-table");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(response.body()).doesNotContain("Exception").doesNotContain("idempotency_keys\" not found");
            assertThat(context.getBean(AdapterTestController.class).runs("widgets")).isZero();
        }
    }

    @Test
    void jdbcOffKeepsTheInMemoryFallbackAndLeavesTheDatabaseAlone() throws Exception {
        JdbcDataSource dataSource = freshDatabase();
        try (ApplicationContext context = start(Map.of("idempotency.jdbc.enabled", false), dataSource)) {
            assertThat(post(context, "mem-1").statusCode()).isEqualTo(201);
            assertThat(post(context, "mem-1").headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(context.getBean(AdapterTestController.class).runs("widgets")).isEqualTo(1);
        }
    }
}
