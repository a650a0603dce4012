package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testkit.internal.TcpProxy;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * A throwaway schema (PostgreSQL) or database (MariaDB, H2) for one test class, and pools on it.
 *
 * <p>The server is, in this order: the JDBC URL in {@code IDEMPOTENCY_TEST_POSTGRES_URL} /
 * {@code IDEMPOTENCY_TEST_MARIADB_URL} (user and password in {@code …_USER} / {@code …_PASSWORD});
 * else a Testcontainers container of the image pinned in the build, when a Docker engine is
 * reachable; else the local service (PostgreSQL at 127.0.0.1:5432 database {@code test} user
 * {@code postgres}; MariaDB at 127.0.0.1:3306 user {@code root}).
 */
public final class TestDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TestDatabase.class);

    enum Kind { POSTGRES, MARIADB, H2 }

    /** Where a server is and who to log in as; {@code url} names a database the tests may use. */
    public record Server(String url, String user, String password, String source) {
    }

    private static Server postgresServer;
    private static Server mariadbServer;
    private static Boolean docker;

    final Kind kind;
    public final Server server;
    /** The schema (PostgreSQL) or database (MariaDB, H2, {@link #postgresDatabase()}) of this test class. */
    final String name;
    /** PostgreSQL: a database of its own rather than a schema in the server's. */
    private final boolean ownDatabase;
    private final List<HikariDataSource> pools = new ArrayList<>();

    private TestDatabase(Kind kind, Server server, String name) {
        this(kind, server, name, false);
    }

    private TestDatabase(Kind kind, Server server, String name, boolean ownDatabase) {
        this.kind = kind;
        this.server = server;
        this.name = name;
        this.ownDatabase = ownDatabase;
    }

    /**
     * A PostgreSQL database of its own, for tests of what depends on the whole database: which row
     * versions may be pruned (and so whether an update can be HOT) waits for the oldest snapshot of
     * any session in the same database, another test's or another build's.
     */
    static TestDatabase postgresDatabase() {
        TestDatabase db = new TestDatabase(Kind.POSTGRES, postgresServer(), uniqueName(), true);
        db.adminExecute("CREATE DATABASE " + db.name);
        return db;
    }

    public static TestDatabase postgres() {
        TestDatabase db = new TestDatabase(Kind.POSTGRES, postgresServer(), uniqueName());
        db.adminExecute("CREATE SCHEMA " + db.name);
        return db;
    }

    public static TestDatabase mariadb() {
        TestDatabase db = new TestDatabase(Kind.MARIADB, mariadbServer(), uniqueName());
        db.adminExecute("CREATE DATABASE " + db.name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        return db;
    }

    public static TestDatabase h2() {
        String name = uniqueName();
        TestDatabase db = new TestDatabase(Kind.H2, new Server("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "",
                "H2 in memory"), name);
        // Created here, as the other kinds' are: H2's first start in a JVM is slow on a loaded machine,
        // and must not count against a pool's connection timeout.
        db.execute("SELECT 1");
        return db;
    }

    private static String uniqueName() {
        return "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** The JDBC URL of this class's own schema or database. */
    public String url() {
        return switch (kind) {
            case POSTGRES -> ownDatabase ? withPostgresDatabase(server.url(), name)
                    : withParameter(server.url(), "currentSchema=" + name);
            case MARIADB -> withDatabase(server.url(), name);
            case H2 -> server.url();
        };
    }

    private static final Pattern LOCAL_POSTGRES_URL =
            Pattern.compile("^jdbc:postgresql://(127\\.0\\.0\\.1|localhost)(?::(\\d+))?/(.*)$");

    /**
     * A {@link TcpProxy} in front of this PostgreSQL, for tests that cut or slow its connections;
     * such a test is skipped when the server is not on this machine.
     */
    TcpProxy proxy() throws IOException {
        Matcher url = LOCAL_POSTGRES_URL.matcher(url());
        Assumptions.assumeTrue(kind == Kind.POSTGRES && url.matches(),
                "needs a PostgreSQL on this machine to put a proxy in front of");
        return new TcpProxy(url.group(2) == null ? 5432 : Integer.parseInt(url.group(2)));
    }

    /** The {@link #url()} of this database through {@code proxy}. */
    String urlThrough(TcpProxy proxy) {
        Matcher url = LOCAL_POSTGRES_URL.matcher(url());
        if (!url.matches()) {
            throw new IllegalStateException("not a local PostgreSQL: " + this);
        }
        return "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + url.group(3);
    }

    /** A pool on this class's schema or database; closed with it. */
    public HikariDataSource pool(String poolName, int size) {
        return pool(poolName, size, url(), server.user(), server.password());
    }

    /** A pool with the recommended outage settings, on any URL (a proxy, another role). */
    HikariDataSource pool(String poolName, int size, String url, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName + "-" + name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(1500);
        config.setValidationTimeout(1000);
        config.setInitializationFailTimeout(-1);
        if (kind == Kind.POSTGRES) {
            config.addDataSourceProperty("ApplicationName", poolName + "-" + name);
            config.addDataSourceProperty("connectTimeout", "2");
            config.addDataSourceProperty("socketTimeout", "10");
        }
        if (kind == Kind.MARIADB) {
            config.addDataSourceProperty("connectTimeout", "2000");
            config.addDataSourceProperty("socketTimeout", "10000");
        }
        HikariDataSource pool = new HikariDataSource(config);
        synchronized (pools) {
            pools.add(pool);
        }
        return pool;
    }

    /** A connection to the server as the admin user, outside this class's schema. */
    Connection admin() throws SQLException {
        return DriverManager.getConnection(kind == Kind.H2 ? url() : server.url(), server.user(), server.password());
    }

    void adminExecute(String sql) {
        try (Connection c = admin(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("Failed: " + sql, e);
        }
    }

    /** Runs SQL inside this class's schema or database. */
    public void execute(String sql) {
        try (Connection c = DriverManager.getConnection(url(), server.user(), server.password());
             Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("Failed: " + sql, e);
        }
    }

    @Override
    public void close() {
        synchronized (pools) {
            pools.forEach(HikariDataSource::close);
            pools.clear();
        }
        try {
            switch (kind) {
                case POSTGRES -> adminExecute(ownDatabase ? "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"
                        : "DROP SCHEMA IF EXISTS " + name + " CASCADE");
                case MARIADB -> adminExecute("DROP DATABASE IF EXISTS " + name);
                case H2 -> execute("SHUTDOWN");
            }
        } catch (RuntimeException e) {
            log.warn("Could not drop test {} {}: {}", kind, name, e.toString());
        }
    }

    @Override
    public String toString() {
        return kind.toString().toLowerCase(Locale.ROOT) + " " + name + " (" + server.source() + ")";
    }

    private static synchronized Server postgresServer() {
        if (postgresServer == null) {
            postgresServer = fromEnvironment("POSTGRES");
            if (postgresServer == null && dockerAvailable()) {
                PostgreSQLContainer container = new PostgreSQLContainer(System.getProperty(
                        "idempotency.test.postgres.image", "postgres:15.8-alpine"));
                container.start();
                postgresServer = new Server(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                        "Testcontainers " + container.getDockerImageName());
            }
            if (postgresServer == null) {
                postgresServer = new Server("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "", "local service");
            }
            log.info("PostgreSQL for tests: {} ({})", postgresServer.url(), postgresServer.source());
        }
        return postgresServer;
    }

    private static synchronized Server mariadbServer() {
        if (mariadbServer == null) {
            mariadbServer = fromEnvironment("MARIADB");
            if (mariadbServer == null && dockerAvailable()) {
                MariaDBContainer container = new MariaDBContainer(System.getProperty(
                        "idempotency.test.mariadb.image", "mariadb:10.11.9"));
                container.withUsername("root").withPassword("");
                container.start();
                mariadbServer = new Server(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                        "Testcontainers " + container.getDockerImageName());
            }
            if (mariadbServer == null) {
                mariadbServer = new Server("jdbc:mariadb://127.0.0.1:3306/test", "root", "", "local service");
            }
            log.info("MariaDB for tests: {} ({})", mariadbServer.url(), mariadbServer.source());
        }
        return mariadbServer;
    }

    private static Server fromEnvironment(String kind) {
        String url = System.getenv("IDEMPOTENCY_TEST_" + kind + "_URL");
        if (url == null || url.isBlank()) {
            return null;
        }
        String user = System.getenv("IDEMPOTENCY_TEST_" + kind + "_USER");
        String password = System.getenv("IDEMPOTENCY_TEST_" + kind + "_PASSWORD");
        return new Server(url, user == null ? (kind.equals("POSTGRES") ? "postgres" : "root") : user,
                password == null ? "" : password, "IDEMPOTENCY_TEST_" + kind + "_URL");
    }

    private static synchronized boolean dockerAvailable() {
        if (docker == null) {
            try {
                docker = DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                docker = false;
            }
        }
        return docker;
    }

    private static String withParameter(String url, String parameter) {
        return url + (url.contains("?") ? "&" : "?") + parameter;
    }

    private static final Pattern MYSQL_URL = Pattern.compile("^(jdbc:(?:mariadb|mysql)://[^/?]+)(?:/([^?]*))?(\\?.*)?$");

    private static final Pattern POSTGRES_URL = Pattern.compile("^(jdbc:postgresql://[^/?]+)/([^?]*)(\\?.*)?$");

    private static String withPostgresDatabase(String url, String database) {
        Matcher m = POSTGRES_URL.matcher(url);
        if (!m.matches()) {
            throw new IllegalArgumentException("Not a PostgreSQL JDBC URL with a database: " + url);
        }
        return m.group(1) + "/" + database + (m.group(3) == null ? "" : m.group(3));
    }

    private static String withDatabase(String url, String database) {
        Matcher m = MYSQL_URL.matcher(url);
        if (!m.matches()) {
            throw new IllegalArgumentException("Not a MariaDB/MySQL JDBC URL: " + url);
        }
        return m.group(1) + "/" + database + (m.group(3) == null ? "" : m.group(3));
    }
}
