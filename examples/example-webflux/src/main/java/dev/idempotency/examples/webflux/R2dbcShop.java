package dev.idempotency.examples.webflux;

import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.PostgresUrl;
import dev.idempotency.examples.ProblemException;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.r2dbc.core.DatabaseClient;
import reactor.core.publisher.Mono;

/**
 * The orders and payments over R2DBC on PostgreSQL: Spring's {@link DatabaseClient} on an
 * r2dbc-pool {@link ConnectionPool} of r2dbc-postgresql connections, which {@code R2dbcStore}
 * shares. Of {@code DATABASE_URL}'s parameters it takes {@code user}, {@code password},
 * {@code currentSchema} (or {@code search_path}) and {@code ApplicationName} (or
 * {@code application_name}); any other is refused rather than dropped.
 */
final class R2dbcShop implements Shop {

    /** Connections: as many as the JDBC examples' pool. */
    static final int POOL_SIZE = 16;
    /** In the atomic mode each keyed request in flight holds one (its transaction), as in the other examples. */
    static final int ATOMIC_POOL_SIZE = 40;
    /**
     * Connections kept open while idle in the atomic mode, as the JDBC examples' atomic pool: a
     * burst of keyed requests does not wait for new connections to be made.
     */
    static final int ATOMIC_MIN_IDLE = 10;
    /** The session's bound on every statement (the store's and these), as JdbcStore's default. */
    static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    private static final Set<String> PARAMETERS = Set.of("currentSchema", "search_path", "ApplicationName",
            "application_name");

    private final ConnectionPool pool;
    private final DatabaseClient db;
    private final String description;

    private R2dbcShop(ConnectionPool pool, String description) {
        this.pool = pool;
        this.db = DatabaseClient.create(pool);
        this.description = description;
    }

    /**
     * Opens the pool (lazily: the first statement makes the first connection, or
     * {@link #ATOMIC_MIN_IDLE} of them when {@code atomic}), of up to {@link #ATOMIC_POOL_SIZE}
     * connections when {@code atomic}, else {@link #POOL_SIZE}.
     */
    static R2dbcShop open(PostgresUrl url, boolean atomic) {
        for (String name : url.parameters().keySet()) {
            if (!PARAMETERS.contains(name)) {
                throw new IllegalArgumentException("DATABASE_URL parameter '" + name + "' is not supported by the "
                        + "WebFlux example's R2DBC connections (they take user, password, currentSchema, "
                        + "ApplicationName)");
            }
        }
        Map<String, String> options = new HashMap<>();
        options.put("statement_timeout", String.valueOf(STATEMENT_TIMEOUT.toMillis()));
        // CREATE TABLE IF NOT EXISTS on every start would otherwise log its NOTICE
        options.put("client_min_messages", "warning");
        PostgresqlConnectionConfiguration.Builder config = PostgresqlConnectionConfiguration.builder()
                .host(url.host()).port(url.port()).database(url.database()).username(url.user())
                .password(url.password().isEmpty() ? null : url.password())
                .connectTimeout(Duration.ofSeconds(2))
                .options(options);
        String schema = url.currentSchema().orElse(url.parameters().get("search_path"));
        if (schema != null) {
            config.schema(schema);
        }
        url.applicationName().ifPresent(config::applicationName);
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration
                .builder(new PostgresqlConnectionFactory(config.build()))
                .name("example-r2dbc")
                .initialSize(atomic ? ATOMIC_MIN_IDLE : 0)
                .minIdle(atomic ? ATOMIC_MIN_IDLE : 0)
                .maxSize(atomic ? ATOMIC_POOL_SIZE : POOL_SIZE)
                // a request gets its 503 within seconds when the database is gone
                .maxAcquireTime(Duration.ofSeconds(2))
                .maxIdleTime(Duration.ofMinutes(10))
                .build());
        return new R2dbcShop(pool, "R2DBC PostgreSQL at " + url.display() + (schema == null ? "" : " (schema "
                + schema + ")"));
    }

    /** The pool, for {@code R2dbcStore}. */
    ConnectionPool pool() {
        return pool;
    }

    @Override
    public Mono<Order> createOrder(String tenant, NewOrder order) {
        return db.sql("INSERT INTO example_orders (tenant, item, quantity, status) VALUES (:tenant, :item, :quantity, :status)")
                .bind("tenant", tenant).bind("item", order.item()).bind("quantity", order.quantity())
                .bind("status", "created")
                .filter(statement -> statement.returnGeneratedValues("id"))
                .map(row -> row.get("id", Long.class)).one()
                .map(id -> new Order(id, order.item(), order.quantity(), "created"))
                .onErrorMap(R2dbcShop::unavailable);
    }

    @Override
    public Mono<List<Order>> orders(String tenant) {
        return db.sql("SELECT id, item, quantity, status FROM example_orders WHERE tenant = :tenant ORDER BY id")
                .bind("tenant", tenant).map(R2dbcShop::order).all().collectList()
                .onErrorMap(R2dbcShop::unavailable);
    }

    @Override
    public Mono<Order> order(String tenant, long id) {
        return db.sql("SELECT id, item, quantity, status FROM example_orders WHERE tenant = :tenant AND id = :id")
                .bind("tenant", tenant).bind("id", id).map(R2dbcShop::order).one()
                .onErrorMap(R2dbcShop::unavailable);
    }

    @Override
    public Mono<Payment> createPayment(String tenant, NewPayment payment) {
        return db.sql("INSERT INTO example_payments (tenant, amount, status) VALUES (:tenant, :amount, :status)")
                .bind("tenant", tenant).bind("amount", payment.amount()).bind("status", payment.outcome())
                .filter(statement -> statement.returnGeneratedValues("id"))
                .map(row -> row.get("id", Long.class)).one()
                .map(id -> new Payment(id, payment.amount(), payment.outcome()))
                .onErrorMap(R2dbcShop::unavailable);
    }

    @Override
    public Mono<List<Payment>> payments(String tenant) {
        return db.sql("SELECT id, amount, status FROM example_payments WHERE tenant = :tenant ORDER BY id")
                .bind("tenant", tenant)
                .map(row -> new Payment(row.get("id", Long.class), row.get("amount", Integer.class),
                        row.get("status", String.class)))
                .all().collectList()
                .onErrorMap(R2dbcShop::unavailable);
    }

    private static Order order(io.r2dbc.spi.Readable row) {
        return new Order(row.get("id", Long.class), row.get("item", String.class), row.get("quantity", Integer.class),
                row.get("status", String.class));
    }

    /** Any failure of the database is a retryable 503 problem, as in the JDBC repository. */
    private static Throwable unavailable(Throwable e) {
        return e instanceof ProblemException ? e : ProblemException.databaseUnavailable(e);
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public void close() {
        pool.dispose();
    }
}
