package dev.idempotency.examples;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A throwaway schema on the local PostgreSQL (127.0.0.1:5432, database {@code test}, user
 * {@code postgres}; or the JDBC URL in {@code IDEMPOTENCY_TEST_POSTGRES_URL} with
 * {@code IDEMPOTENCY_TEST_POSTGRES_USER} / {@code …_PASSWORD}, as the project's other tests) for one
 * test class, and a {@code DATABASE_URL} naming it in either form.
 */
public final class PostgresTestSchema implements AutoCloseable {

    private final String jdbcBase;
    private final String user;
    private final String password;
    private final String name = "ex_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    public PostgresTestSchema() {
        String url = System.getenv("IDEMPOTENCY_TEST_POSTGRES_URL");
        String envUser = System.getenv("IDEMPOTENCY_TEST_POSTGRES_USER");
        String envPassword = System.getenv("IDEMPOTENCY_TEST_POSTGRES_PASSWORD");
        jdbcBase = url == null || url.isBlank() ? "jdbc:postgresql://127.0.0.1:5432/test" : url.replaceFirst("\\?.*$", "");
        user = envUser == null ? "postgres" : envUser;
        password = envPassword == null ? "" : envPassword;
        execute("CREATE SCHEMA " + name);
    }

    public String name() {
        return name;
    }

    /** The JDBC form: {@code jdbc:postgresql://host:port/db?currentSchema=<schema>&user=...}. */
    public String jdbcUrl() {
        return jdbcBase + "?currentSchema=" + name + "&ApplicationName=" + name + "&user=" + encode(user)
                + (password.isEmpty() ? "" : "&password=" + encode(password));
    }

    /** The libpq form: {@code postgresql://user[:password]@host:port/db?currentSchema=<schema>}. */
    public String postgresqlUrl() {
        String hostAndDb = jdbcBase.substring("jdbc:postgresql://".length());
        return "postgresql://" + encode(user) + (password.isEmpty() ? "" : ":" + encode(password)) + "@" + hostAndDb
                + "?currentSchema=" + name + "&ApplicationName=" + name;
    }

    /** Empties the example's tables (when they exist), so each start begins with no orders and no records. */
    public void reset() {
        execute("DO $$ DECLARE t text; BEGIN FOR t IN SELECT table_name FROM information_schema.tables "
                + "WHERE table_schema = '" + name + "' LOOP EXECUTE 'TRUNCATE " + name + ".' || quote_ident(t) "
                + "|| ' RESTART IDENTITY'; END LOOP; END $$");
    }

    /** A single number from a query inside the schema. */
    public long queryLong(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + name);
            try (ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcBase, user, password);
    }

    private void execute(String sql) {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("Failed: " + sql, e);
        }
    }

    /** Drops the schema with everything in it. */
    @Override
    public void close() {
        execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
