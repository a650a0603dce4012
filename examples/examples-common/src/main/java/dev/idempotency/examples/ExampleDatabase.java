package dev.idempotency.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The example's database: a HikariCP pool over {@code DATABASE_URL}, or over a fresh embedded H2
 * database in memory, or a pool the framework owns ({@link #over}), with the example's own tables
 * created on start.
 */
final class ExampleDatabase implements AutoCloseable {

    private final DataSource dataSource;
    /** Null when the framework owns the pool and closes it. */
    private final HikariDataSource ownPool;
    private final boolean embedded;
    private final String description;

    private ExampleDatabase(DataSource dataSource, HikariDataSource ownPool, boolean embedded, String description) {
        this.dataSource = dataSource;
        this.ownPool = ownPool;
        this.embedded = embedded;
        this.description = description;
    }

    /**
     * @param transactionsHere whether the atomic mode's transactions are on this pool (the JDBC store); with
     *                         another store (PgStore's own pool) this one serves single statements only
     */
    static ExampleDatabase open(ExampleSettings settings, boolean transactionsHere) {
        String url = settings.jdbcUrlOrFreshH2();
        ExamplePool pool = ExamplePool.of(settings, transactionsHere);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("example");
        config.setMaximumPoolSize(pool.maxSize());
        config.setMinimumIdle(pool.minIdle());
        config.setConnectionTimeout(pool.acquisitionTimeout().toMillis());
        config.setValidationTimeout(pool.validationTimeout().toMillis());
        HikariDataSource dataSource = new HikariDataSource(config);
        try {
            return prepare(dataSource, dataSource, settings, url);
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    /**
     * The example's tables in {@code dataSource}, a pool over {@code settings}' database that the
     * framework owns and closes (sized with {@link ExamplePool#of}).
     */
    static ExampleDatabase over(DataSource dataSource, ExampleSettings settings) {
        return prepare(dataSource, null, settings, settings.jdbcUrl().orElse("jdbc:h2:mem:"));
    }

    private static ExampleDatabase prepare(DataSource dataSource, HikariDataSource ownPool, ExampleSettings settings,
                                           String url) {
        boolean embedded = settings.databaseUrl().isEmpty();
        try {
            String product = ownPool != null ? createTables(dataSource) : patiently(() -> createTables(dataSource));
            String where = embedded ? "embedded H2 (in memory)" : product + " at " + withoutParameters(url);
            return new ExampleDatabase(dataSource, ownPool, embedded, where);
        } catch (SQLException | RuntimeException e) {
            throw new IllegalStateException("Could not prepare the database at " + withoutParameters(url) + ": "
                    + e.getMessage(), e);
        }
    }

    DataSource dataSource() {
        return dataSource;
    }

    boolean isEmbedded() {
        return embedded;
    }

    /** E.g. {@code PostgreSQL at jdbc:postgresql://127.0.0.1:5432/test}, without credentials. */
    String description() {
        return description;
    }

    /** Closes the pool unless the framework owns it (then the framework closes it). */
    @Override
    public void close() {
        if (ownPool == null) {
            return;
        }
        if (embedded) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN"); // DB_CLOSE_DELAY=-1 would keep it for the JVM's lifetime
            } catch (SQLException ignored) {
                // already gone
            }
        }
        ownPool.close();
    }

    /** How long a pool the framework owns may take to open its first connection at start. */
    static final Duration FIRST_CONNECTION = Duration.ofSeconds(10);

    private interface Step<T> {
        T run() throws SQLException;
    }

    /**
     * {@code step} on a pool the framework owns, tried again until {@link #FIRST_CONNECTION} has
     * passed: its first connection (H2 loading its engine, a loaded machine) may take longer than the
     * wait a request is given ({@link ExamplePool}), which HikariCP's own first connection is not held to.
     */
    private static <T> T patiently(Step<T> step) throws SQLException {
        long deadline = System.nanoTime() + FIRST_CONNECTION.toNanos();
        while (true) {
            try {
                return step.run();
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** Creates the orders and payments tables if missing; returns the database product's name. */
    private static String createTables(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            String product = c.getMetaData().getDatabaseProductName();
            String id = product.toLowerCase(Locale.ROOT).contains("postgres")
                    ? "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
                    : "BIGINT AUTO_INCREMENT PRIMARY KEY"; // H2, MariaDB, MySQL
            boolean postgres = product.toLowerCase(Locale.ROOT).contains("postgres");
            if (postgres) {
                // Two services starting together on a fresh database would otherwise race on
                // CREATE TABLE IF NOT EXISTS; the lock ends with the session's transaction.
                c.setAutoCommit(false);
                s.execute("SELECT pg_advisory_xact_lock(hashtext('example_tables'))");
            }
            for (String ddl : List.of(
                    "CREATE TABLE IF NOT EXISTS example_orders (id " + id + ", tenant VARCHAR(255) NOT NULL, "
                            + "item VARCHAR(200) NOT NULL, quantity INT NOT NULL, status VARCHAR(32) NOT NULL)",
                    "CREATE TABLE IF NOT EXISTS example_payments (id " + id + ", tenant VARCHAR(255) NOT NULL, "
                            + "amount INT NOT NULL, status VARCHAR(32) NOT NULL)")) {
                s.execute(ddl);
            }
            if (postgres) {
                c.commit();
                c.setAutoCommit(true);
            }
            return product;
        }
    }

    private static String withoutParameters(String url) {
        int query = url.indexOf('?');
        int semicolon = url.indexOf(';');
        int end = query < 0 ? semicolon : semicolon < 0 ? query : Math.min(query, semicolon);
        return end < 0 ? url : url.substring(0, end);
    }
}
