package dev.idempotency.r2dbc;

import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.TableName;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.mariadb.r2dbc.MariadbConnectionConfiguration;
import org.mariadb.r2dbc.MariadbConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A throwaway schema (PostgreSQL) or database (MariaDB) for one test class, and r2dbc-pool pools on
 * it. The server is, as in idempotency-jdbc's tests, the JDBC URL in
 * {@code IDEMPOTENCY_TEST_POSTGRES_URL} / {@code IDEMPOTENCY_TEST_MARIADB_URL} (user and password in
 * {@code …_USER} / {@code …_PASSWORD}), else the local service: PostgreSQL at 127.0.0.1:5432
 * database {@code test} user {@code postgres}, MariaDB at 127.0.0.1:3306 user {@code root}.
 */
final class R2dbcTestDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(R2dbcTestDatabase.class);

    final R2dbcStore.Dialect dialect;
    final String name = "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final Server server;
    private final List<ConnectionPool> pools = new ArrayList<>();

    /** Where a server is and who to log in as. */
    record Server(String host, int port, String database, String user, String password) {
    }

    private R2dbcTestDatabase(R2dbcStore.Dialect dialect) {
        this.dialect = dialect;
        this.server = server(dialect);
        adminExecute(dialect == R2dbcStore.Dialect.POSTGRESQL ? "CREATE SCHEMA " + name
                : "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    }

    static R2dbcTestDatabase postgres() {
        return new R2dbcTestDatabase(R2dbcStore.Dialect.POSTGRESQL);
    }

    static R2dbcTestDatabase mariadb() {
        return new R2dbcTestDatabase(R2dbcStore.Dialect.MARIADB);
    }

    static R2dbcTestDatabase of(R2dbcStore.Dialect dialect) {
        return new R2dbcTestDatabase(dialect);
    }

    static Server server(R2dbcStore.Dialect dialect) {
        boolean postgres = dialect == R2dbcStore.Dialect.POSTGRESQL;
        String prefix = postgres ? "IDEMPOTENCY_TEST_POSTGRES_" : "IDEMPOTENCY_TEST_MARIADB_";
        String url = System.getenv(prefix + "URL");
        String user = env(prefix + "USER", postgres ? "postgres" : "root");
        String password = env(prefix + "PASSWORD", "");
        if (url == null || url.isBlank()) {
            return new Server("127.0.0.1", postgres ? 5432 : 3306, "test", user, password);
        }
        URI uri = URI.create(url.startsWith("jdbc:") ? url.substring(5) : url);
        return new Server(uri.getHost(), uri.getPort() == -1 ? (postgres ? 5432 : 3306) : uri.getPort(),
                uri.getPath().replaceFirst("^/", ""), user, password);
    }

    /** A connection factory on this class's schema or database, {@code port} standing for the server's. */
    ConnectionFactory factory(String label, int port) {
        if (dialect == R2dbcStore.Dialect.POSTGRESQL) {
            return new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                    .host(server.host()).port(port).database(server.database())
                    .username(server.user()).password(server.password())
                    .schema(name).applicationName(label + "-" + name)
                    .connectTimeout(Duration.ofSeconds(2)).build());
        }
        return new MariadbConnectionFactory(MariadbConnectionConfiguration.builder()
                .host(server.host()).port(port).database(name)
                .username(server.user()).password(server.password().isEmpty() ? null : server.password())
                .connectTimeout(Duration.ofSeconds(2)).build());
    }

    /** A pool on this class's schema or database; closed with it. */
    ConnectionPool pool(String label, int size) {
        return pool(label, size, server.port());
    }

    /** A pool on another port (a closed one). */
    ConnectionPool pool(String label, int size, int port) {
        return pool(label, size, port, Duration.ofSeconds(2));
    }

    /** A pool that waits at most {@code maxAcquireTime} for a free connection. */
    ConnectionPool pool(String label, int size, int port, Duration maxAcquireTime) {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(factory(label, port))
                .name(label + "-" + name).initialSize(0).maxSize(size).maxAcquireTime(maxAcquireTime).build());
        synchronized (pools) {
            pools.add(pool);
        }
        return pool;
    }

    int port() {
        return server.port();
    }

    /** Creates the table with the shipped migrations. */
    void createTable(String tableName) {
        SqlDialect sqlDialect = dialect == R2dbcStore.Dialect.POSTGRESQL ? SqlDialect.POSTGRES : SqlDialect.MARIADB;
        List<String> ddl = Ddl.statements(sqlDialect, Ddl.scripts(sqlDialect, sqlDialect == SqlDialect.MARIADB, false,
                false), TableName.of(tableName), Ddl.DEFAULT_TENANT_SETTING);
        ddl.forEach(this::execute);
    }

    /** Runs SQL inside this class's schema or database, on a connection of its own. */
    void execute(String sql) {
        await(Mono.usingWhen(Mono.from(factory("admin", server.port()).create()),
                c -> run(c, sql), Connection::close).toFuture());
    }

    /** Runs SQL as the admin, outside this class's schema. */
    private void adminExecute(String sql) {
        ConnectionFactory admin = dialect == R2dbcStore.Dialect.POSTGRESQL
                ? new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder().host(server.host())
                        .port(server.port()).database(server.database()).username(server.user())
                        .password(server.password()).build())
                : new MariadbConnectionFactory(MariadbConnectionConfiguration.builder().host(server.host())
                        .port(server.port()).username(server.user())
                        .password(server.password().isEmpty() ? null : server.password()).build());
        await(Mono.usingWhen(Mono.from(admin.create()), c -> run(c, sql), Connection::close).toFuture());
    }

    static Mono<Void> run(Connection c, String sql) {
        return Flux.from(c.createStatement(sql).execute()).concatMap(result -> result.getRowsUpdated()).then();
    }

    static <T> T await(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
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
            pools.forEach(ConnectionPool::dispose);
            pools.clear();
        }
        try {
            adminExecute(dialect == R2dbcStore.Dialect.POSTGRESQL ? "DROP SCHEMA IF EXISTS " + name + " CASCADE"
                    : "DROP DATABASE IF EXISTS " + name);
        } catch (RuntimeException e) {
            log.warn("Could not drop test schema {}: {}", name, e.toString());
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
