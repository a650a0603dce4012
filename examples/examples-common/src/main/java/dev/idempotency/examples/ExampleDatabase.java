package dev.idempotency.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.Mode;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The example's database: a HikariCP pool over {@code DATABASE_URL}, or over a fresh embedded H2
 * database in memory, with the example's own tables created on start.
 */
final class ExampleDatabase implements AutoCloseable {

    /**
     * Connections for the reserve and optimistic modes and without idempotency: as many as the
     * requests a service typically works on at once (the benchmark sends 16). A request borrows a
     * connection per statement — three times in the reserve mode — and when borrowers outnumber
     * the connections HikariCP hands a returned one over by spinning ({@code Thread.yield} in
     * {@code ConcurrentBag.requite}) and wakes its connection-adder thread for every wait.
     */
    static final int POOL_SIZE = 16;
    /** Connections kept open while idle, in every mode. */
    static final int MIN_IDLE = 10;
    /**
     * Connections kept open while idle in the atomic mode when another pool holds its transactions
     * (the Vert.x example's PgStore, up to 40 connections of its own): this pool then serves only
     * the requests without a key and the reads. With {@link #MIN_IDLE} two such services after a
     * burst of duplicates held 2 × (40 + 10) connections, PostgreSQL's default
     * {@code max_connections} of 100, and the server refused further clients
     * (example-reliability's {@code TwoInstancesTest}).
     */
    static final int MIN_IDLE_BESIDE_ATOMIC_POOL = 2;
    /** Connections in the atomic mode: up to this many keyed requests in flight, with room to spare. */
    static final int ATOMIC_POOL_SIZE = 40;

    private final HikariDataSource dataSource;
    private final boolean embedded;
    private final String description;

    private ExampleDatabase(HikariDataSource dataSource, boolean embedded, String description) {
        this.dataSource = dataSource;
        this.embedded = embedded;
        this.description = description;
    }

    /**
     * @param transactionsHere whether the atomic mode's transactions are on this pool (the JDBC store); with
     *                         another store (PgStore's own pool) this one serves single statements only
     */
    static ExampleDatabase open(ExampleSettings settings, boolean transactionsHere) {
        boolean embedded = settings.databaseUrl().isEmpty();
        // A name of its own, so two services in one JVM (tests) never share rows.
        String url = settings.jdbcUrl().orElse("jdbc:h2:mem:example-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("example");
        // In the atomic mode every request in flight holds a connection (its transaction) until it
        // is answered; the other modes borrow one per statement.
        boolean oneConnectionPerRequest = transactionsHere && settings.mode() == Mode.ATOMIC
                && settings.idempotencyEnabled();
        config.setMaximumPoolSize(oneConnectionPerRequest ? ATOMIC_POOL_SIZE : POOL_SIZE);
        // Opened on demand beyond the usual ten, so an idle service does not sit on 16 or 40 of
        // the server's connections.
        config.setMinimumIdle(!transactionsHere && settings.mode() == Mode.ATOMIC && settings.idempotencyEnabled()
                ? MIN_IDLE_BESIDE_ATOMIC_POOL : MIN_IDLE);
        // Fail fast when the database is gone: a request must get its 503 within two seconds, not
        // after HikariCP's default 30 s. In the atomic mode a request takes one connection and
        // keeps it (its write and its rollback use the same one), so it waits at most once; in the
        // other modes it may wait up to three times (reservation, its own write, the release after
        // that write failed).
        config.setConnectionTimeout(oneConnectionPerRequest ? 1_500 : 600);
        config.setValidationTimeout(250);
        HikariDataSource dataSource = new HikariDataSource(config);
        try {
            String product = createTables(dataSource);
            String where = embedded ? "embedded H2 (in memory)" : product + " at " + withoutParameters(url);
            return new ExampleDatabase(dataSource, embedded, where);
        } catch (SQLException | RuntimeException e) {
            dataSource.close();
            throw new IllegalStateException("Could not prepare the database at " + withoutParameters(url) + ": "
                    + e.getMessage(), e);
        }
    }

    HikariDataSource dataSource() {
        return dataSource;
    }

    boolean isEmbedded() {
        return embedded;
    }

    /** E.g. {@code PostgreSQL at jdbc:postgresql://127.0.0.1:5432/test}, without credentials. */
    String description() {
        return description;
    }

    @Override
    public void close() {
        if (embedded) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN"); // DB_CLOSE_DELAY=-1 would keep it for the JVM's lifetime
            } catch (SQLException ignored) {
                // already gone
            }
        }
        dataSource.close();
    }

    /** Creates the orders and payments tables if missing; returns the database product's name. */
    private static String createTables(HikariDataSource dataSource) throws SQLException {
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
