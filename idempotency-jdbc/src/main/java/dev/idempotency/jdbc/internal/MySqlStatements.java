package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDB and MySQL, which have neither {@code ON CONFLICT … WHERE} nor, on MySQL,
 * {@code RETURNING}.
 *
 * <p>The reservation is one {@code INSERT … ON DUPLICATE KEY UPDATE} that takes the existing row
 * over only when it is not live: the first assignment writes this caller's fresh owner token if
 * the row is not live and keeps the old token otherwise, and every later assignment copies the new
 * value only if the token is now this caller's. (The server evaluates the assignments left to
 * right, each seeing the columns already assigned, so conditioning every column on the liveness
 * test directly would see half-updated rows; the token, unique per attempt, is the one stable
 * signal.) Whoever's token is in the row afterwards won.
 *
 * <p>MariaDB (10.5+) returns that row from the same statement with {@code RETURNING}. MySQL
 * reads it back by primary key afterwards: a second statement, but only an observation — the
 * decision was made atomically by the upsert, and the token tells who made it.
 * <p>Internal, not API: may change without notice.
 */
public final class MySqlStatements extends Statements {

    private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);

    /** Whether the server has named locks; without them, batches purge as they would without the lock. */
    private volatile boolean namedLocks = true;

    /** MariaDB: the upsert returns the row; MySQL reads it back. Package-private, as the statements, for SQL.md. */
    final boolean returning;
    final SqlStatement upsert;
    private final SqlStatement purge;
    private final SqlStatement takePurgeLock;
    private final SqlStatement releasePurgeLock;

    /**
     * @param returning MariaDB's upsert, which returns the row; without, the upsert of the catalog's
     *                  dialect with its {@code RETURNING} left off (MySQL's, or MariaDB's for a test
     *                  of MySQL's path), the row read back after it
     */
    public MySqlStatements(SqlCatalog catalog, boolean returning) {
        super(catalog);
        this.returning = returning;
        String upsertSql = catalog.sql("upsert");
        int returningClause = upsertSql.lastIndexOf("\nreturning");
        upsert = new SqlStatement(returning || returningClause < 0 ? upsertSql : upsertSql.substring(0, returningClause),
                true);
        purge = compile("purge");
        takePurgeLock = compile("takePurgeLock");
        releasePurgeLock = compile("releasePurgeLock");
    }

    @Override
    public Attempt reserve(Connection c, NewRow row, Instant now) throws SQLException {
        return upsert(c, row, now);
    }

    @Override
    public boolean insertCompleted(Connection c, NewRow row, Instant now) throws SQLException {
        return upsert(c, row, now) == WON;
    }

    /** One batch in {@code expires_at} order, through its index: MariaDB and MySQL delete with a limit directly. */
    @Override
    SqlStatement purgeStatement() {
        return purge;
    }

    /**
     * One batch under the table's purge lock, a named lock of the session taken without waiting
     * and released after the batch: while another store instance purges the same table, this one
     * deletes nothing and answers 0 at once (its next run tries again), so two instances' batches
     * never wait on each other's row locks.
     */
    @Override
    public int purge(Connection c, Instant now, int limit) throws SQLException {
        if (!namedLocks) {
            return super.purge(c, now, limit);
        }
        try {
            if (!namedLock(c, takePurgeLock)) {
                return 0;
            }
        } catch (SQLException e) {
            if (!SqlErrors.lacksNamedLocks(e.getErrorCode())) {
                throw e;
            }
            namedLocks = false;
            log.info("The database has no named locks (a Galera cluster): purges of several instances may wait for"
                    + " each other's rows, one bounded batch at a time");
            return super.purge(c, now, limit);
        }
        int purged;
        try {
            purged = super.purge(c, now, limit);
        } catch (SQLException | RuntimeException e) {
            try {
                releasePurgeLock(c);
            } catch (SQLException | RuntimeException release) {
                e.addSuppressed(release);
            }
            throw e;
        }
        releasePurgeLock(c);
        return purged;
    }

    /**
     * Releases the purge lock; a session that cannot is aborted, so that the pool never hands out a
     * connection that still holds it (which would keep every other instance from purging).
     */
    private void releasePurgeLock(Connection c) throws SQLException {
        try {
            namedLock(c, releasePurgeLock);
        } catch (SQLException | RuntimeException e) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw e;
        }
    }

    /** Runs {@code lock} with the table's name bound; whether it answered 1. */
    private boolean namedLock(Connection c, SqlStatement lock) throws SQLException {
        try (PreparedStatement ps = prepare(c, lock, Map.of("table_label", catalog.table().label()));
             ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getInt(1) == 1;
        }
    }

    /** Runs the conditional upsert and judges the row as it stands afterwards by its owner token. */
    private Attempt upsert(Connection c, NewRow row, Instant now) throws SQLException {
        Map<String, Object> values = Records.rowValues(row, now);
        if (!returning) {
            update(c, upsert, values);
        }
        try (PreparedStatement ps = prepare(c, returning ? upsert : readBack, values);
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return RETRY;
            }
            return row.ownerToken().equals(rs.getString("owner_token")) ? WON
                    : lostTo((returning ? upsert : readBack).read(row.key(), rs), now);
        }
    }

    /**
     * Instances that start together create or upgrade the table one after the other: a named lock
     * of the session (DDL commits on its own, so no transaction could hold one), released by
     * {@link #ddlUnlock()}.
     */
    @Override
    public String ddlLock() {
        return catalog.sql("ddlLock");
    }

    @Override
    public String ddlUnlock() {
        return catalog.sql("ddlUnlock");
    }

    /** MariaDB accepts a lock wait of 0 s (no wait); MySQL's minimum is 1 s. */
    @Override
    public AtomicSession atomicSession(String tenantSetting) {
        return new Session(this, catalog.dialect() == SqlDialect.MARIADB);
    }

    /**
     * MariaDB and MySQL: {@code innodb_lock_wait_timeout} is a session variable in whole seconds
     * (MariaDB accepts 0, no wait; MySQL's minimum is 1 s), saved in a user variable and put back
     * after the reservation. {@code SET TRANSACTION ISOLATION LEVEL} without {@code SESSION}
     * applies to the next transaction only, so it needs no undoing.
     */
    static final class Session extends AtomicSession.SessionLockWait {

        /** {@code wait} in whole seconds, rounded up; at least 1 where 0 is not allowed. */
        static long seconds(Duration wait, boolean zeroAllowed) {
            long seconds = (millis(wait) + 999) / 1000;
            return Math.max(zeroAllowed ? 0 : 1, seconds);
        }

        private final boolean zeroAllowed;
        private boolean saved;

        Session(Statements sql, boolean zeroAllowed) {
            super(sql);
            this.zeroAllowed = zeroAllowed;
        }

        @Override
        void beginTransaction(Connection c, Duration wait) throws SQLException {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute(sql.catalog.lockWait(seconds(wait), true));
                saved = true;
                s.execute(sql.catalog.sql("readCommittedNext"));
            }
        }

        @Override
        void lockWait(Connection c, Duration wait) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute(sql.catalog.lockWait(seconds(wait), false));
            }
        }

        @Override
        void restoreLockWait(Connection c) throws SQLException {
            if (saved) {
                try (Statement s = c.createStatement()) {
                    s.execute(sql.catalog.sql("restoreLockWait"));
                }
                saved = false;
            }
        }

        @Override
        public boolean isLockTimeout(SQLException e) {
            return SqlErrors.isLockTimeout(e.getSQLState(), e.getErrorCode());
        }

        /**
         * A dirty read: InnoDB's non-locking read at READ UNCOMMITTED returns the newest version of
         * the row, uncommitted or not, without waiting. {@code SET TRANSACTION ISOLATION LEVEL}
         * without {@code SESSION} applies to the next transaction only — here the one primary-key
         * read — so nothing is left to undo: two round trips. A statement that fails before it
         * starts that transaction leaves the level pending; {@code ROLLBACK} drops it.
         */
        @Override
        public Holder holder(Connection c, NewRow row, Instant now) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute(sql.catalog.sql("readUncommittedNext"));
            }
            Optional<IdempotencyRecord> newest;
            try {
                newest = readRow(c, row);
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            } catch (SQLException | RuntimeException e) {
                try (Statement s = c.createStatement()) {
                    s.execute("ROLLBACK");
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            }
            return Records.holderOf(newest, row.fingerprint(), now);
        }

        private long seconds(Duration wait) {
            return seconds(wait, zeroAllowed);
        }
    }
}
