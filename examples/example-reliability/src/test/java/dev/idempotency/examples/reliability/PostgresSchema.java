package dev.idempotency.examples.reliability;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * A throwaway PostgreSQL schema for one test class, and the {@code DATABASE_URL} that points an
 * example service at it.
 *
 * <p>The server follows the project's rule: the JDBC URL in {@code IDEMPOTENCY_TEST_POSTGRES_URL}
 * (user and password in {@code IDEMPOTENCY_TEST_POSTGRES_USER} / {@code …_PASSWORD}); else a
 * Testcontainers container of the pinned image when a Docker engine is reachable; else the local
 * service at 127.0.0.1:5432, database {@code test}, user {@code postgres}.
 */
final class PostgresSchema implements AutoCloseable {

    /** Where the server is and who to log in as; {@code url} names a database the tests may use. */
    record Server(String url, String user, String password, String source) {
    }

    private static final Pattern LOCAL_URL =
            Pattern.compile("^jdbc:postgresql://(127\\.0\\.0\\.1|localhost)(?::(\\d+))?/([^?]*)(\\?.*)?$");

    private static Server server;

    private final String name;

    private PostgresSchema(String name) {
        this.name = name;
    }

    /** Creates a fresh schema named {@code <prefix>_<random>}. */
    static PostgresSchema create(String prefix) {
        PostgresSchema schema = new PostgresSchema(prefix + "_" + UUID.randomUUID().toString().replace("-", "")
                .substring(0, 10));
        schema.adminExecute("CREATE SCHEMA " + schema.name);
        return schema;
    }

    String name() {
        return name;
    }

    static synchronized Server server() {
        if (server == null) {
            server = fromEnvironment();
            if (server == null && dockerAvailable()) {
                PostgreSQLContainer container = new PostgreSQLContainer(System.getProperty(
                        "idempotency.test.postgres.image", "postgres:15.8-alpine"));
                container.start();
                server = new Server(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                        "Testcontainers " + container.getDockerImageName());
            }
            if (server == null) {
                server = new Server("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "", "local service");
            }
        }
        return server;
    }

    /**
     * The URL an example service gets as {@code DATABASE_URL}: this schema as its search path,
     * the credentials as parameters (the example takes nothing but a URL), and
     * {@code ApplicationName} set to the schema's name so its backends can be found in
     * {@code pg_stat_activity}.
     */
    String exampleUrl() {
        return exampleUrl(server().url());
    }

    /**
     * {@link #exampleUrl()} with host and port replaced: a service reaching the database through a
     * proxy on {@code 127.0.0.1:port}.
     *
     * @throws IllegalStateException when the server is not on this machine (no proxy can stand in front)
     */
    String exampleUrlThrough(int port) {
        Matcher m = LOCAL_URL.matcher(server().url());
        if (!m.matches()) {
            throw new IllegalStateException("PostgreSQL is not on this machine: " + server().url());
        }
        return exampleUrl("jdbc:postgresql://127.0.0.1:" + port + "/" + m.group(3) + (m.group(4) == null ? "" : m.group(4)));
    }

    /** The port of a PostgreSQL on this machine, or -1 when the server is elsewhere. */
    static int localPort() {
        Matcher m = LOCAL_URL.matcher(server().url());
        if (!m.matches()) {
            return -1;
        }
        return m.group(2) == null ? 5432 : Integer.parseInt(m.group(2));
    }

    private String exampleUrl(String base) {
        Server s = server();
        StringBuilder url = new StringBuilder(base).append(base.contains("?") ? "&" : "?")
                .append("currentSchema=").append(name)
                .append("&ApplicationName=").append(name)
                .append("&user=").append(encode(s.user()));
        if (!s.password().isEmpty()) {
            url.append("&password=").append(encode(s.password()));
        }
        return url.toString();
    }

    /** A connection inside this schema (its search path), as the admin user. */
    Connection connect() throws SQLException {
        Server s = server();
        return DriverManager.getConnection(s.url() + (s.url().contains("?") ? "&" : "?") + "currentSchema=" + name,
                s.user(), s.password());
    }

    /** A single number from a query run inside this schema, e.g. a {@code count(*)}. */
    long queryLong(String sql, Object... parameters) {
        try (Connection c = connect(); PreparedStatement p = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                p.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Failed: " + sql, e);
        }
    }

    /** Whether a table of this name exists in this schema yet. */
    boolean hasTable(String table) {
        return queryLong("SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                name, table) > 0;
    }

    /**
     * Terminates the backends of the example services on this schema (by {@code ApplicationName});
     * returns how many.
     */
    long terminateExampleBackends() {
        try (Connection c = admin(); PreparedStatement p = c.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?")) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not terminate the backends of " + name, e);
        }
    }

    /** How many backends of the example services on this schema are in a transaction right now. */
    long exampleBackendsInTransaction() {
        try (Connection c = admin(); PreparedStatement p = c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND xact_start IS NOT NULL")) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not read pg_stat_activity", e);
        }
    }

    /** Drops the schema with everything in it. */
    @Override
    public void close() {
        adminExecute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }

    @Override
    public String toString() {
        return "schema " + name + " on " + server().url() + " (" + server().source() + ")";
    }

    private Connection admin() throws SQLException {
        Server s = server();
        return DriverManager.getConnection(s.url(), s.user(), s.password());
    }

    private void adminExecute(String sql) {
        try (Connection c = admin(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("Failed: " + sql, e);
        }
    }

    private static Server fromEnvironment() {
        String url = System.getenv("IDEMPOTENCY_TEST_POSTGRES_URL");
        if (url == null || url.isBlank()) {
            return null;
        }
        String user = System.getenv("IDEMPOTENCY_TEST_POSTGRES_USER");
        String password = System.getenv("IDEMPOTENCY_TEST_POSTGRES_PASSWORD");
        return new Server(url, user == null ? "postgres" : user, password == null ? "" : password,
                "IDEMPOTENCY_TEST_POSTGRES_URL");
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
