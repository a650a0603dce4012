package dev.idempotency.readme;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A throwaway PostgreSQL schema for a quick start that needs a database: the server from
 * {@code IDEMPOTENCY_TEST_POSTGRES_URL} (a JDBC URL; {@code …_USER}, {@code …_PASSWORD}), else the
 * local service at 127.0.0.1:5432, database {@code test}, user {@code postgres}. The application
 * gets it as a Vert.x client URI whose {@code search_path} is the schema, or a JDBC URL whose
 * {@code currentSchema} is; the schema is dropped at the end.
 */
final class QuickStartDatabase implements AutoCloseable {

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String schema = "readme_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private QuickStartDatabase() {
        String url = System.getenv("IDEMPOTENCY_TEST_POSTGRES_URL");
        jdbcUrl = url == null || url.isBlank() ? "jdbc:postgresql://127.0.0.1:5432/test" : url;
        String u = System.getenv("IDEMPOTENCY_TEST_POSTGRES_USER");
        String p = System.getenv("IDEMPOTENCY_TEST_POSTGRES_PASSWORD");
        user = u == null ? "postgres" : u;
        password = p == null ? "" : p;
    }

    static QuickStartDatabase create() throws SQLException {
        QuickStartDatabase db = new QuickStartDatabase();
        db.execute("CREATE SCHEMA " + db.schema);
        return db;
    }

    /** {@link #vertxUri()} on a schema that does not exist: no table can be there. */
    String vertxUriOfAMissingSchema() {
        return vertxUri() + "_missing";
    }

    /** {@code postgresql://user[:password]@host:port/database?search_path=<schema>}. */
    String vertxUri() {
        URI server = URI.create(jdbcUrl.substring("jdbc:".length()).replaceFirst("\\?.*$", ""));
        String credentials = user + (password.isEmpty() ? "" : ":" + password);
        return "postgresql://" + credentials + "@" + server.getHost() + ":" + (server.getPort() == -1 ? 5432
                : server.getPort()) + server.getPath() + "?search_path=" + schema;
    }

    /** {@code r2dbc:postgresql://host:port/database?schema=<schema>}, for Spring Boot's {@code spring.r2dbc.url}. */
    String r2dbcUrl() {
        URI server = URI.create(jdbcUrl.substring("jdbc:".length()).replaceFirst("\\?.*$", ""));
        return "r2dbc:postgresql://" + server.getHost() + ":" + (server.getPort() == -1 ? 5432 : server.getPort())
                + server.getPath() + "?schema=" + schema;
    }

    /** The server's JDBC URL with {@code currentSchema} set to the schema. */
    String jdbcUrl() {
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    long count(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            try (ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    @Override
    public void close() throws SQLException {
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
}
