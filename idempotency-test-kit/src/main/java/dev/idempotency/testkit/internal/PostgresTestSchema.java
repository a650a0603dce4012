package dev.idempotency.testkit.internal;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A throwaway PostgreSQL schema for one test: the server in {@code IDEMPOTENCY_TEST_POSTGRES_URL}
 * ({@code …_USER}, {@code …_PASSWORD}), else the local one (127.0.0.1:5432, database {@code test},
 * user {@code postgres}). Dropped with everything in it on {@link #close()}. Needs a PostgreSQL JDBC
 * driver on the test class path.
 */
public final class PostgresTestSchema implements AutoCloseable {

    private static final String SERVER = env("IDEMPOTENCY_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    public static final String USER = env("IDEMPOTENCY_TEST_POSTGRES_USER", "postgres");
    public static final String PASSWORD = env("IDEMPOTENCY_TEST_POSTGRES_PASSWORD", "");

    /** The schema's name. */
    public final String name = "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    public PostgresTestSchema() {
        execute("CREATE SCHEMA " + name);
    }

    /** A URL whose connections work in this schema. */
    public String url() {
        return SERVER + (SERVER.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    /** Runs {@code sql} in this schema. */
    public void execute(String sql) {
        try (Connection c = DriverManager.getConnection(url(), USER, PASSWORD); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Whether this schema has a table {@code table}. */
    public boolean hasTable(String table) {
        try (Connection c = DriverManager.getConnection(url(), USER, PASSWORD); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT to_regclass('" + name + "." + table + "') IS NOT NULL")) {
            rs.next();
            return rs.getBoolean(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        execute("DROP SCHEMA " + name + " CASCADE");
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
