package dev.idempotency.vertx.sql;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway schema for one test class, and Vert.x pools whose connections have it as their
 * {@code search_path}. The server is, as in idempotency-jdbc's tests, the JDBC URL in
 * {@code IDEMPOTENCY_TEST_POSTGRES_URL} (user and password in {@code IDEMPOTENCY_TEST_POSTGRES_USER}
 * / {@code …_PASSWORD}), else the local service at 127.0.0.1:5432, database {@code test}, user
 * {@code postgres}. (No container: the Vert.x client needs no JDBC driver, and this module's tests
 * need no Docker engine.)
 */
final class PgTestDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PgTestDatabase.class);

    final Vertx vertx = Vertx.vertx();
    final String schema = "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final PgConnectOptions server = server();
    private final Pool admin;
    private final List<Pool> pools = new ArrayList<>();
    private final List<String> roles = new ArrayList<>();

    PgTestDatabase() {
        admin = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(server).using(vertx).build();
        adminExecute("CREATE SCHEMA " + schema);
    }

    /** Where the server is: the environment's URL, else the local service. */
    static PgConnectOptions server() {
        String url = System.getenv("IDEMPOTENCY_TEST_POSTGRES_URL");
        PgConnectOptions options = new PgConnectOptions().setHost("127.0.0.1").setPort(5432).setDatabase("test")
                .setUser("postgres").setPassword("");
        if (url != null && !url.isBlank()) {
            URI uri = URI.create(url.startsWith("jdbc:") ? url.substring(5) : url);
            options.setHost(uri.getHost()).setPort(uri.getPort() == -1 ? 5432 : uri.getPort())
                    .setDatabase(uri.getPath().replaceFirst("^/", ""));
            String user = System.getenv("IDEMPOTENCY_TEST_POSTGRES_USER");
            String password = System.getenv("IDEMPOTENCY_TEST_POSTGRES_PASSWORD");
            options.setUser(user == null ? "postgres" : user).setPassword(password == null ? "" : password);
        }
        return options;
    }

    /** A pool on this class's schema; closed with it. */
    Pool pool(String name, int size) {
        return pool(name, size, new PgConnectOptions(server));
    }

    /** A pool on this class's schema with other connect options (a closed port, another role). */
    Pool pool(String name, int size, PgConnectOptions options) {
        return pool(vertx, name, size, options);
    }

    /** A pool on this class's schema on another Vert.x instance (one whose event loops a test watches). */
    Pool pool(Vertx on, String name, int size) {
        return pool(on, name, size, new PgConnectOptions(server));
    }

    private Pool pool(Vertx on, String name, int size, PgConnectOptions options) {
        Map<String, String> properties = new java.util.HashMap<>(options.getProperties());
        properties.put("search_path", schema);
        properties.put("application_name", name + "-" + schema);
        options.setProperties(properties);
        Pool pool = PgBuilder.pool()
                .with(new PoolOptions().setMaxSize(size).setConnectionTimeout(2).setConnectionTimeoutUnit(TimeUnit.SECONDS))
                .connectingTo(options).using(on).build();
        synchronized (pools) {
            pools.add(pool);
        }
        return pool;
    }

    /** A login role of this class (no superuser, no BYPASSRLS), dropped with the schema. */
    String createRole() {
        String role = schema + "_app";
        adminExecute("CREATE ROLE " + role + " LOGIN NOSUPERUSER NOBYPASSRLS");
        roles.add(role);
        adminExecute("GRANT USAGE ON SCHEMA " + schema + " TO " + role);
        return role;
    }

    /** Runs SQL as the admin, outside this class's schema. */
    RowSet<Row> adminExecute(String sql) {
        return await(admin.query(sql).execute());
    }

    /** Runs SQL inside this class's schema. */
    RowSet<Row> execute(String sql) {
        RowSet<Row> rows = adminExecute("SET search_path TO " + schema + "; " + sql);
        while (rows.next() != null) {
            rows = rows.next(); // the result of the statement after SET
        }
        return rows;
    }

    /** Ends every other backend on this class's schema's connections (the pools' included). */
    int terminateBackends() {
        return adminExecute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND application_name LIKE '%-" + schema + "' AND pid <> pg_backend_pid()").rowCount();
    }

    /** How many backends of this class's pools wait for a lock now. */
    int waitingForLocks() {
        return adminExecute("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND application_name LIKE '%-" + schema + "'").rowCount();
    }

    static <T> T await(Future<T> future) {
        return await(future.toCompletionStage());
    }

    static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(Duration.ofSeconds(20).toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        synchronized (pools) {
            pools.forEach(p -> await(p.close()));
            pools.clear();
        }
        try {
            adminExecute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            for (String role : roles) {
                adminExecute("DROP ROLE IF EXISTS " + role);
            }
        } catch (RuntimeException e) {
            log.warn("Could not drop test schema {}: {}", schema, e.toString());
        }
        await(admin.close());
        await(vertx.close());
    }
}
