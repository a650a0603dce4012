package dev.idempotency.jdbc;

import dev.idempotency.sql.SqlErrors;
import java.sql.SQLException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDB and MySQL: each purge batch under the table's purge lock, a named lock of the session
 * taken without waiting and released after the batch. While another store instance purges the same
 * table, this one deletes nothing and answers 0 at once (its next run tries again), so two
 * instances' batches never wait on each other's row locks. A server without named locks (a Galera
 * cluster) purges without.
 */
final class MariaDbPurge {

    private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);

    private volatile boolean namedLocks = true;

    /** One batch on {@code s}: the rows it deleted. */
    int batch(JdbcSession s, Map<String, Object> values) throws SQLException {
        if (namedLocks) {
            try {
                if (!namedLock(s, "takePurgeLock")) {
                    return 0;
                }
            } catch (SQLException e) {
                if (!SqlErrors.lacksNamedLocks(e.getErrorCode())) {
                    throw e;
                }
                namedLocks = false;
                log.info("The database has no named locks (a Galera cluster): purges of several instances may wait"
                        + " for each other's rows, one bounded batch at a time");
            }
        }
        if (!namedLocks) {
            return delete(s, values);
        }
        int purged;
        try {
            purged = delete(s, values);
        } catch (SQLException | RuntimeException e) {
            try {
                release(s);
            } catch (SQLException | RuntimeException release) {
                e.addSuppressed(release);
            }
            throw e;
        }
        release(s);
        return purged;
    }

    private static int delete(JdbcSession s, Map<String, Object> values) throws SQLException {
        return (int) (long) JdbcSession.join(s.update("purge", values));
    }

    /**
     * Releases the purge lock; a session that cannot is aborted, so that the pool never hands out a
     * connection that still holds it (which would keep every other instance from purging).
     */
    private static void release(JdbcSession s) throws SQLException {
        try {
            namedLock(s, "releasePurgeLock");
        } catch (SQLException | RuntimeException e) {
            try {
                s.abort();
            } catch (SQLException | RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw e;
        }
    }

    /** Whether the named lock statement {@code name} answered 1. */
    private static boolean namedLock(JdbcSession s, String name) throws SQLException {
        return JdbcSession.join(s.query(name, Map.of("table_label", s.tableLabel()), row -> "1".equals(row.text("locked"))))
                .stream().findFirst().orElse(false);
    }
}
