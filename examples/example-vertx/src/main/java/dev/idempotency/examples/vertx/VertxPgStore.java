package dev.idempotency.examples.vertx;

import dev.idempotency.core.Mode;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.ExampleStore;
import dev.idempotency.examples.PostgresUrl;
import dev.idempotency.vertx.sql.PgStore;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code PgStore} on a Vert.x PostgreSQL pool over {@code DATABASE_URL}: the Vert.x example's
 * store when the database is PostgreSQL (unless {@code IDEMPOTENCY_STORE=jdbc}). Of the URL's
 * parameters it takes {@code user}, {@code password}, {@code currentSchema} (or
 * {@code search_path}) and {@code ApplicationName} (or {@code application_name}); any other is
 * refused, so that nothing the JDBC driver would have honoured is silently dropped.
 */
final class VertxPgStore {

    /** Connections in the reserve and optimistic modes: one per statement, as many as the JDBC pool. */
    static final int POOL_SIZE = 16;
    /** The atomic mode: each keyed request in flight holds one (its transaction), as the JDBC pool's 40. */
    static final int ATOMIC_POOL_SIZE = 40;

    /** How long the start waits for the database to create the table. */
    private static final int START_WAIT_SECONDS = 30;

    private static final Set<String> PARAMETERS = Set.of("currentSchema", "search_path", "ApplicationName",
            "application_name");

    private VertxPgStore() {
    }

    static ExampleStore open(Vertx vertx, ExampleSettings settings, PostgresUrl url) {
        for (String name : url.parameters().keySet()) {
            if (!PARAMETERS.contains(name)) {
                throw new IllegalArgumentException("DATABASE_URL parameter '" + name + "' is not supported by the "
                        + "Vert.x example's PgStore (it takes user, password, currentSchema, ApplicationName); "
                        + "set IDEMPOTENCY_STORE=jdbc to use the JDBC driver instead");
            }
        }
        PgConnectOptions options = new PgConnectOptions().setHost(url.host()).setPort(url.port())
                .setDatabase(url.database()).setUser(url.user()).setPassword(url.password());
        String schema = url.currentSchema().orElse(url.parameters().get("search_path"));
        if (schema != null) {
            options.addProperty("search_path", schema);
        }
        url.applicationName().ifPresent(name -> options.addProperty("application_name", name));
        // CREATE TABLE IF NOT EXISTS on every start would otherwise log its NOTICE as a warning
        options.addProperty("client_min_messages", "warning");
        // The pool is the store's (and, in the atomic mode, the handler's on the reservation's
        // connection): the statements are bounded per session, which costs nothing per statement,
        // instead of PgStore's per-statement wrapper (idempotency-vertx-sql README, Statement timeout).
        options.addProperty("statement_timeout", String.valueOf(PgStore.DEFAULT_STATEMENT_TIMEOUT.toMillis()));
        boolean atomic = settings.mode() == Mode.ATOMIC;
        Pool pool = PgBuilder.pool()
                .with(new PoolOptions().setName("example-pg").setMaxSize(atomic ? ATOMIC_POOL_SIZE : POOL_SIZE)
                        // a request gets its 503 within seconds when the database is gone
                        .setConnectionTimeout(2).setConnectionTimeoutUnit(TimeUnit.SECONDS))
                .connectingTo(PgStore.cachingStatements(options)).using(vertx).build();
        PgStore store = PgStore.builder(pool).statementTimeout(Duration.ZERO).build();
        try {
            createTable(store);
        } catch (Exception e) {
            close(pool);
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("Could not prepare PgStore's table at " + url.display() + ": "
                    + cause.getMessage(), cause);
        }
        String description = "PgStore (table " + store.tableName() + ", reactive Vert.x PostgreSQL client) in PostgreSQL at "
                + url.display() + (schema == null ? "" : " (schema " + schema + ")");
        return ExampleStore.async(store, description, () -> close(pool));
    }

    /**
     * {@code createTableIfMissing}, asked again while the pool answers "busy" (no connection within
     * its 2 s), for up to {@value #START_WAIT_SECONDS} s in all: the first connections of a JVM that
     * is still loading its classes, on a loaded machine, can take longer than a request may wait
     * (two services started together failed so in example-reliability's {@code TwoInstancesTest}).
     * Any other failure stops the start at once.
     */
    private static void createTable(PgStore store) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_WAIT_SECONDS);
        while (true) {
            try {
                store.createTableIfMissing().toCompletableFuture()
                        .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                return;
            } catch (ExecutionException e) {
                boolean busy = e.getCause() instanceof StorageUnavailableException u
                        && u.reason() == StorageUnavailableException.Reason.BUSY;
                if (!busy || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(250);
            }
        }
    }

    private static void close(Pool pool) {
        try {
            pool.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closed with Vert.x anyway
        }
    }
}
