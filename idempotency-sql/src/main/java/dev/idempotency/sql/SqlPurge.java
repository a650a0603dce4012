package dev.idempotency.sql;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One purge batch: at most {@code limit} expired rows that are not live, deleted. MariaDB and MySQL
 * run it under the table's purge lock, a named lock of the session taken without waiting and
 * released after the batch: while another store instance purges the same table, this one deletes
 * nothing and answers 0 at once (its next run tries again), so two instances' batches never wait on
 * each other's row locks. A session whose lock cannot be released is {@linkplain SqlSession#abort
 * aborted}. A server without named locks (a Galera cluster) purges without.
 */
public final class SqlPurge {

    private static final System.Logger log = System.getLogger(SqlPurge.class.getName());

    private final SqlCatalog sql;
    private final SqlConnections connections;
    private volatile boolean namedLocks;

    public SqlPurge(SqlCatalog sql, SqlConnections connections) {
        this.sql = sql;
        this.connections = connections;
        this.namedLocks = sql.dialect() == SqlDialect.MARIADB || sql.dialect() == SqlDialect.MYSQL;
    }

    /** One batch on {@code s}: how many rows it deleted. */
    public CompletionStage<Long> batch(SqlSession s, Instant now, int limit) {
        Map<String, Object> values = Map.of("now", Records.micros(now), "limit", limit);
        if (!namedLocks) {
            return s.update("purge", values);
        }
        return AtomicSql.settle(namedLock(s, "takePurgeLock"),
                taken -> !taken ? CompletableFuture.completedFuture(0L) : AtomicSql.settle(s.update("purge", values),
                        purged -> release(s).thenApply(v -> purged),
                        failure -> AtomicSql.quietly(release(s)).thenCompose(v -> CompletableFuture.failedFuture(failure))),
                failure -> {
                    SqlConnections.SqlError error = connections.error(failure);
                    if (error == null || !SqlErrors.lacksNamedLocks(error.code())) {
                        return CompletableFuture.failedFuture(failure);
                    }
                    namedLocks = false;
                    log.log(Level.INFO, "The database has no named locks (a Galera cluster): purges of several"
                            + " instances may wait for each other's rows, one bounded batch at a time");
                    return s.update("purge", values);
                });
    }

    private CompletionStage<Void> release(SqlSession s) {
        return AtomicSql.settle(namedLock(s, "releasePurgeLock"), released -> AtomicSql.done(),
                failure -> AtomicSql.quietly(s.abort()).thenCompose(v -> CompletableFuture.failedFuture(failure)));
    }

    /** Whether the named-lock statement {@code name} on this table answered 1. */
    private CompletionStage<Boolean> namedLock(SqlSession s, String name) {
        return s.query(name, Map.of("table_label", sql.table().label()), row -> Long.valueOf(1).equals(row.get("locked", Long.class)))
                .thenApply(rows -> !rows.isEmpty() && rows.get(0));
    }
}
