package dev.idempotency.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.ExampleStorage;
import dev.idempotency.examples.PostgresTestSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The examples' HTTP contract against the Quarkus service on embedded H2 (JdbcStore); more starts
 * run it on PostgreSQL and, in the atomic mode, on MariaDB — each database its own Agroal data
 * source. On PostgreSQL throughout: {@link QuarkusExampleOnPostgresTest}; on Redis:
 * {@link QuarkusExampleOnRedisTest}.
 */
class QuarkusExampleTest extends QuarkusExampleContract {

    QuarkusExampleTest() {
        super(ExampleStorage.EMBEDDED_H2);
    }

    /** A {@code postgresql://} URL: the orders and the records in a throwaway schema, through JdbcStore. */
    @Test
    void onPostgresTheRecordIsInTheDatabaseAndTheRetryIsReplayed() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (PostgresTestSchema schema = new PostgresTestSchema();
             RunningExample example = start(settings(Map.of("DATABASE_URL", schema.postgresqlUrl())))) {
            assertThat(example.startupLine())
                    .contains("idempotency store: JdbcStore (table idempotency_keys) in PostgreSQL at jdbc:postgresql://");
            HttpRequest order = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + example.port() + "/orders"))
                    .header("Idempotency-Key", UUID.randomUUID().toString()).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\",\"quantity\":1}")).build();

            HttpResponse<String> first = http.send(order, HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> retry = http.send(order, HttpResponse.BodyHandlers.ofString());

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(schema.queryLong("SELECT count(*) FROM idempotency_keys")).isEqualTo(1);
            assertThat(schema.queryLong("SELECT count(*) FROM example_orders")).isEqualTo(1);
        }
    }

    /**
     * MariaDB, the third data source: the atomic mode's JTA transaction on it, in a throwaway
     * database. The retry replays, one order and one record.
     */
    @Test
    void onMariaDbTheAtomicModeCommitsTheOrderWithTheRecord() throws Exception {
        String database = "quarkus_example_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String server = "jdbc:mariadb://127.0.0.1:3306/";
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (Connection admin = DriverManager.getConnection(server + "test?user=root");
             Statement sql = admin.createStatement()) {
            sql.execute("CREATE DATABASE " + database);
            try (RunningExample example = start(settings(Map.of("DATABASE_URL", server + database + "?user=root",
                    "IDEMPOTENCY_MODE", "atomic")))) {
                assertThat(example.startupLine()).contains("in MariaDB at jdbc:mariadb://", "mode: atomic");
                HttpRequest order = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + example.port() + "/orders"))
                        .header("Idempotency-Key", UUID.randomUUID().toString()).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\",\"quantity\":1}")).build();

                HttpResponse<String> first = http.send(order, HttpResponse.BodyHandlers.ofString());
                HttpResponse<String> retry = http.send(order, HttpResponse.BodyHandlers.ofString());

                assertThat(first.statusCode()).isEqualTo(201);
                assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
                assertThat(retry.body()).isEqualTo(first.body());
                assertThat(count(sql, database + ".idempotency_keys")).isEqualTo(1);
                assertThat(count(sql, database + ".example_orders")).isEqualTo(1);
            } finally {
                sql.execute("DROP DATABASE " + database);
            }
        }
    }

    /** A JDBC URL of a database the example has no data source for stops the start, saying which it has. */
    @Test
    void aDatabaseWithoutADataSourceIsRefused() {
        assertThatThrownBy(() -> start(settings(Map.of("DATABASE_URL", "jdbc:sqlite:orders.db"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DATABASE_URL must name H2, PostgreSQL or MariaDB in the Quarkus example");
    }

    private static long count(Statement sql, String table) throws Exception {
        try (ResultSet rows = sql.executeQuery("SELECT count(*) FROM " + table)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The variables the test hands the process spell the same settings. */
    @Test
    void theProcessEnvironmentReadsBackAsTheSameSettings() {
        ExampleSettings settings = ExampleSettings.from(Map.of("DATABASE_URL", "postgresql://u@db:5432/shop",
                "REDIS_URL", "redis://cache:6379", "REDIS_KEY_PREFIX", "shop:", "IDEMPOTENCY_STORE", "jdbc",
                "IDEMPOTENCY_MODE", "optimistic", "IDEMPOTENCY", "off", "HOST", "127.0.0.1", "PORT", "9090"));

        assertThat(ExampleSettings.from(QuarkusProcess.environment(settings))).isEqualTo(settings);
        assertThat(ExampleSettings.from(QuarkusProcess.environment(ExampleSettings.defaults())))
                .isEqualTo(ExampleSettings.defaults());
    }
}
