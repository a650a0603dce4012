package dev.idempotency.examples;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * Everything an example service needs besides its framework: the database with the example's
 * tables, the {@link ShopRepository}, and the {@link IdempotencyEngine} (absent with
 * {@code IDEMPOTENCY=off}) over the store {@link ExampleSettings#store(ExampleSettings.StoreKind)} selects: a
 * {@link JdbcStore} in the same database, a {@code RedisStore} at {@code REDIS_URL}, or the
 * framework's own (Vert.x: {@code PgStore}, WebFlux: {@code R2dbcStore}, through {@link StoreSupport}). A service creates one on start,
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
    private final ExampleStore store;
    private final ExampleSettings.StoreKind storeKind;

    private ExampleApp(ExampleSettings settings, ExampleDatabase database, IdempotencyEngine engine,
                       ExampleStore store, ExampleSettings.StoreKind storeKind) {
        this.settings = settings;
        this.database = database;
        this.repository = new ShopRepository(database.dataSource());
        this.engine = engine;
        this.store = store;
        this.storeKind = storeKind;
    }

    /**
     * What a framework adds to the store selection.
     *
     * @param nonBlocking   whether the engine should get a store's non-blocking face ({@code RedisStore.async()})
     * @param postgresKind  the framework's own PostgreSQL store ({@code PG}: Vert.x, {@code R2DBC}: WebFlux), or null
     * @param postgresStore opens that store for {@code DATABASE_URL}; null when the framework has none
     */
    public record StoreSupport(boolean nonBlocking, ExampleSettings.StoreKind postgresKind,
                               BiFunction<ExampleSettings, PostgresUrl, ExampleStore> postgresStore) {
        /** Blocking stores only, no store of the framework's own: the Javalin and Micronaut examples. */
        public static final StoreSupport BLOCKING = new StoreSupport(false, null, null);

        /** With {@code PgStore}: the Vert.x example. */
        public StoreSupport(boolean nonBlocking, BiFunction<ExampleSettings, PostgresUrl, ExampleStore> pgStore) {
            this(nonBlocking, ExampleSettings.StoreKind.PG, pgStore);
        }
    }

    /** Opens the database, creates the tables, builds the engine (blocking stores: JDBC or Redis). */
    public static ExampleApp create(ExampleSettings settings) {
        return create(settings, StoreSupport.BLOCKING);
    }

    /** {@link #create(ExampleSettings)} with what the framework adds ({@code PgStore}, non-blocking faces). */
    public static ExampleApp create(ExampleSettings settings, StoreSupport support) {
        // Before the database opens: IDEMPOTENCY_STORE=pg where there is no PgStore fails at once.
        ExampleSettings.StoreKind kind = settings.store(support.postgresKind());
        return create(settings, support, kind,
                ExampleDatabase.open(settings, kind == ExampleSettings.StoreKind.JDBC), UnaryOperator.identity());
    }

    /**
     * {@link #create(ExampleSettings)} over a pool the framework owns and closes, sized with
     * {@link ExamplePool#of} (the Quarkus example's Agroal data source); {@code jdbcStore} completes
     * the JDBC store's builder (Quarkus: {@code transactionManager}, so that the atomic mode's
     * transaction is the framework's).
     */
    public static ExampleApp create(ExampleSettings settings, DataSource pool, UnaryOperator<JdbcStore.Builder> jdbcStore) {
        ExampleSettings.StoreKind kind = settings.store(false);
        return create(settings, StoreSupport.BLOCKING, kind, ExampleDatabase.over(pool, settings), jdbcStore);
    }

    private static ExampleApp create(ExampleSettings settings, StoreSupport support, ExampleSettings.StoreKind kind,
                                     ExampleDatabase database, UnaryOperator<JdbcStore.Builder> jdbcStore) {
        try {
            if (!settings.idempotencyEnabled()) {
                return new ExampleApp(settings, database, null, null, null);
            }
            ExampleStore store = switch (kind) {
                case JDBC -> jdbcStore(database, jdbcStore);
                case REDIS -> RedisStores.open(settings, support.nonBlocking(), database.description());
                case PG, R2DBC -> support.postgresStore().apply(settings, settings.postgres().orElseThrow());
            };
            try {
                return new ExampleApp(settings, database, store.engine(engineConfig(settings.mode())), store, kind);
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** The records next to the orders and payments, in the same database. */
    private static ExampleStore jdbcStore(ExampleDatabase database, UnaryOperator<JdbcStore.Builder> builder) {
        JdbcStore store = builder.apply(JdbcStore.builder(database.dataSource())).build();
        store.createTableIfMissing();
        return ExampleStore.blocking(store, "JdbcStore (table " + JdbcStore.DEFAULT_TABLE + ") in "
                + database.description(), () -> { });
    }

    /** The store the engine runs on; empty with {@code IDEMPOTENCY=off}. */
    public Optional<ExampleSettings.StoreKind> storeKind() {
        return Optional.ofNullable(storeKind);
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

    /**
     * The blocking store under {@link #engine()}, for a binding that takes the store too (Quarkus:
     * the {@code Store} bean); empty with {@code IDEMPOTENCY=off} or a non-blocking store.
     */
    public Optional<Store> blockingStore() {
        return store == null ? Optional.empty() : store.blockingStore();
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

    /**
     * The pool the example's tables (and, with a database store, the records) live in: HikariCP's, or
     * the framework's own.
     */
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
                : idempotencyDescription();
        String address = "http://" + settings.displayHost() + ":" + port;
        return "Orders/payments example (" + framework + ") listening on " + address
                + " | " + idempotency
                + " | try: curl -i -X POST " + address + "/orders -H 'Idempotency-Key: demo-1'"
                + " -H 'Content-Type: application/json' -d '{\"item\":\"book\",\"quantity\":1}'";
    }

    /**
     * {@code idempotency store: <the store>, mode: <mode>}, as the start-up line names them (the
     * payments consumer prints it too).
     *
     * @throws IllegalStateException with {@code IDEMPOTENCY=off}
     */
    public String idempotencyDescription() {
        if (store == null) {
            throw new IllegalStateException("IDEMPOTENCY=off: no store");
        }
        return "idempotency store: " + store.description() + ", mode: " + settings.mode().name().toLowerCase(Locale.ROOT);
    }

    /** Closes the engine, the store's connections and the pool (unless the framework owns it). */
    @Override
    public void close() {
        if (engine != null) {
            engine.close();
            store.close();
        }
        database.close();
    }
}
