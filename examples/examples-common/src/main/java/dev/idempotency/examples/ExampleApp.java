package dev.idempotency.examples;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Everything an example service needs besides its framework: the database with the example's
 * tables, the {@link ShopRepository}, and the {@link IdempotencyEngine} over a {@link JdbcStore} in
 * the same database (absent with {@code IDEMPOTENCY=off}). A service creates one on start,
 * registers its framework's adapter with {@link #engine()} on {@link #IDEMPOTENT_PATHS}, serves the
 * routes, prints {@link #startupLine(String, int)}, and closes it on shutdown.
 *
 * <pre>{@code
 * ExampleApp app = ExampleApp.create(ExampleSettings.fromEnvironment());
 * // ... start the server on app.settings().port(), with the adapter when app.engine() is present
 * System.out.println(app.startupLine("javalin", actualPort));
 * }</pre>
 */
public final class ExampleApp implements AutoCloseable {

    /** The routes the middleware covers: the two that create something. */
    public static final List<String> IDEMPOTENT_PATHS = List.of("/orders", "/payments");

    private final ExampleSettings settings;
    private final ExampleDatabase database;
    private final ShopRepository repository;
    private final IdempotencyEngine engine;
    private final String storeDescription;

    private ExampleApp(ExampleSettings settings, ExampleDatabase database, IdempotencyEngine engine,
                       String storeDescription) {
        this.settings = settings;
        this.database = database;
        this.repository = new ShopRepository(database.dataSource());
        this.engine = engine;
        this.storeDescription = storeDescription;
    }

    /** Opens the database, creates the tables, builds the engine. */
    public static ExampleApp create(ExampleSettings settings) {
        ExampleDatabase database = ExampleDatabase.open(settings);
        try {
            if (!settings.idempotencyEnabled()) {
                return new ExampleApp(settings, database, null, "none");
            }
            // The records live next to the orders and payments, in the same database.
            JdbcStore store = JdbcStore.create(database.dataSource());
            store.createTableIfMissing();
            String storeDescription = "JdbcStore (table " + JdbcStore.DEFAULT_TABLE + ") in "
                    + database.description();
            IdempotencyEngine engine = new IdempotencyEngine(store, engineConfig(settings.mode()));
            return new ExampleApp(settings, database, engine, storeDescription);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** The engine settings every example uses: the given mode and the demo tenant header. */
    public static IdempotencyConfig engineConfig(Mode mode) {
        return IdempotencyConfig.builder()
                .mode(mode)
                .tenantResolver(Tenants.resolver())
                .build();
    }

    public ExampleSettings settings() {
        return settings;
    }

    /** The engine to hand to the framework's adapter; empty with {@code IDEMPOTENCY=off}. */
    public Optional<IdempotencyEngine> engine() {
        return Optional.ofNullable(engine);
    }

    public ShopRepository repository() {
        return repository;
    }

    /**
     * {@code POST /orders} once its body is valid. With a transaction — the atomic mode's, which
     * the route takes from its adapter ({@code execution.unwrap(Connection.class)}) — the order is
     * written there and commits with the stored response; without one, on a pooled connection of
     * its own. {@code delayMs} ({@link ExampleRequests#pause}) is waited inside the transaction,
     * after the write, so a crash test can kill the process while the order is written but not
     * committed; without a transaction it is waited before the write.
     */
    public Order createOrder(Optional<Connection> transaction, String tenant, NewOrder order, String delayMs) {
        if (transaction.isEmpty()) {
            ExampleRequests.pause(delayMs);
            return repository.createOrder(tenant, order);
        }
        Order created = inTransaction(() -> repository.createOrder(transaction.get(), tenant, order));
        ExampleRequests.pause(delayMs);
        return created;
    }

    /** {@code POST /payments} once its body is valid: in the request's transaction when it has one. */
    public Payment createPayment(Optional<Connection> transaction, String tenant, NewPayment payment) {
        return transaction.isEmpty()
                ? repository.createPayment(tenant, payment)
                : inTransaction(() -> repository.createPayment(transaction.get(), tenant, payment));
    }

    private interface Write<T> {
        T run() throws SQLException;
    }

    /** Database errors are a 503 problem, as in {@link ShopRepository}. */
    private static <T> T inTransaction(Write<T> write) {
        try {
            return write.run();
        } catch (SQLException e) {
            throw ProblemException.databaseUnavailable(e);
        }
    }

    /** The pool the example's tables (and, with a database store, the records) live in. */
    public DataSource dataSource() {
        return database.dataSource();
    }

    /**
     * The one line a service prints when it listens: where, which store and mode, and a curl
     * command to try.
     *
     * @param framework the framework's name, e.g. {@code javalin}
     * @param port      the port actually bound (the host is {@code HOST}, {@code localhost} when unset)
     */
    public String startupLine(String framework, int port) {
        String idempotency = engine == null
                ? "idempotency OFF (same routes, no middleware)"
                : "idempotency store: " + storeDescription + ", mode: "
                        + settings.mode().name().toLowerCase(Locale.ROOT);
        String address = "http://" + settings.displayHost() + ":" + port;
        return "Orders/payments example (" + framework + ") listening on " + address
                + " | " + idempotency
                + " | try: curl -i -X POST " + address + "/orders -H 'Idempotency-Key: demo-1'"
                + " -H 'Content-Type: application/json' -d '{\"item\":\"book\",\"quantity\":1}'";
    }

    /** Closes the engine and the pool. */
    @Override
    public void close() {
        if (engine != null) {
            engine.close();
        }
        database.close();
    }
}
