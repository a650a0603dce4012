package dev.idempotency.jdbc.internal;

import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.when;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jooq.Field;
import org.jooq.InsertOnDuplicateSetMoreStep;
import org.jooq.Record;
import org.jooq.SQLDialect;
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

    private static final String DDL_LOCK = "dev.idempotency.ddl";

    /**
     * The name of a table's purge lock, from the session's database and the table's name as
     * given (bound to the one parameter); hashed, since MySQL allows lock names of 64 characters.
     */
    public static final String PURGE_LOCK = "CONCAT('idempotency-purge:', SHA1(CONCAT(IFNULL(DATABASE(), ''), '.', ?)))";
    static final String TAKE_PURGE_LOCK = "GET_LOCK(" + PURGE_LOCK + ", 0)";
    static final String RELEASE_PURGE_LOCK = "RELEASE_LOCK(" + PURGE_LOCK + ")";
    /** What a server without named locks (MariaDB Galera) answers GET_LOCK with. */
    static final int NOT_SUPPORTED_YET = 1235;
    private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);

    /** Whether the server has named locks; without them, batches purge as they would without the lock. */
    private volatile boolean namedLocks = true;

    /** MariaDB: the upsert returns the row; MySQL reads it back. Package-private, as the statements, for SQL.md. */
    final boolean returning;
    final SqlStatement upsert;
    private final SqlStatement purge;

    public MySqlStatements(IdempotencyTable t, SQLDialect dialect, boolean formatted, boolean returning) {
        super(t, dialect, formatted);
        this.returning = returning;
        InsertOnDuplicateSetMoreStep<Record> upsertQuery = ctx.insertInto(t.table).columns(t.columns)
                .values(t.columnParams)
                .onDuplicateKeyUpdate()
                .set(takeOverIfNotLive());
        upsert = compile(returning ? upsertQuery.returningResult(t.recordColumns) : upsertQuery);
        purge = compile(ctx.deleteFrom(t.table).where(t.isPurgeable()).orderBy(t.expiresAt).limit(t.limit));
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
            if (!namedLock(c, TAKE_PURGE_LOCK)) {
                return 0;
            }
        } catch (SQLException e) {
            if (e.getErrorCode() != NOT_SUPPORTED_YET) {
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
            namedLock(c, RELEASE_PURGE_LOCK);
        } catch (SQLException | RuntimeException e) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw e;
        }
    }

    /** Runs {@code SELECT <call>} with the table's name bound; whether it answered 1. */
    private boolean namedLock(Connection c, String call) throws SQLException {
        try (PreparedStatement ps = bounded(c.prepareStatement("SELECT " + call))) {
            ps.setString(1, String.join(".", t.tableName.getName()));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        }
    }

    /** Runs the conditional upsert and judges the row as it stands afterwards by its owner token. */
    private Attempt upsert(Connection c, NewRow row, Instant now) throws SQLException {
        Map<String, Object> values = IdempotencyTable.rowValues(row, now);
        if (!returning) {
            update(c, upsert, values);
        }
        try (PreparedStatement ps = prepare(c, returning ? upsert : readBack, values);
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return RETRY;
            }
            return row.ownerToken().equals(rs.getString("owner_token")) ? WON : lostTo(t.read(row.key(), rs), now);
        }
    }

    private Map<Field<?>, Field<?>> takeOverIfNotLive() {
        Map<Field<?>, Field<?>> set = new LinkedHashMap<>();
        set.put(t.ownerToken, when(t.isNotLive(), excluded(t.ownerToken)).otherwise(t.ownerToken));
        for (Field<?> column : nonKeyColumns()) {
            if (column != t.ownerToken) {
                set.put(column, takeOverIfOwned(column));
            }
        }
        return set;
    }

    private <T> Field<T> takeOverIfOwned(Field<T> column) {
        return when(t.ownerToken.eq(excluded(t.ownerToken)), excluded(column)).otherwise(column);
    }

    /**
     * Instances that start together create or upgrade the table one after the other: a named lock
     * of the session (DDL commits on its own, so no transaction could hold one), released by
     * {@link #ddlUnlock()}.
     */
    @Override
    public String ddlLock() {
        return "SELECT GET_LOCK('" + DDL_LOCK + "', 60)";
    }

    @Override
    public String ddlUnlock() {
        return "SELECT RELEASE_LOCK('" + DDL_LOCK + "')";
    }

    /** MariaDB accepts a lock wait of 0 s (no wait); MySQL's minimum is 1 s. */
    @Override
    public AtomicSession atomicSession(String tenantSetting) {
        return new Session(this, ctx.dialect().family() == SQLDialect.MARIADB);
    }

    /**
     * MariaDB and MySQL: {@code innodb_lock_wait_timeout} is a session variable in whole seconds
     * (MariaDB accepts 0, no wait; MySQL's minimum is 1 s), saved in a user variable and put back
     * after the reservation. {@code SET TRANSACTION ISOLATION LEVEL} without {@code SESSION}
     * applies to the next transaction only, so it needs no undoing.
     */
    static final class Session extends AtomicSession.SessionLockWait {
        /** ER_LOCK_WAIT_TIMEOUT. */
        static final int LOCK_WAIT_TIMEOUT = 1205;
        static final String READ_COMMITTED_NEXT = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
        static final String READ_UNCOMMITTED_NEXT = "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED";
        static final String RESTORE_LOCK_WAIT = "SET SESSION innodb_lock_wait_timeout = @idempotency_lock_wait_timeout";

        /** Saves the session's lock wait (for {@link #RESTORE_LOCK_WAIT}) and sets {@code seconds}. */
        static String saveAndSetLockWait(long seconds) {
            return "SET @idempotency_lock_wait_timeout = @@session.innodb_lock_wait_timeout,"
                    + " SESSION innodb_lock_wait_timeout = " + seconds;
        }

        static String setLockWait(long seconds) {
            return "SET SESSION innodb_lock_wait_timeout = " + seconds;
        }

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
                s.execute(saveAndSetLockWait(seconds(wait)));
                saved = true;
                s.execute(READ_COMMITTED_NEXT);
            }
        }

        @Override
        void lockWait(Connection c, Duration wait) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute(setLockWait(seconds(wait)));
            }
        }

        @Override
        void restoreLockWait(Connection c) throws SQLException {
            if (saved) {
                try (Statement s = c.createStatement()) {
                    s.execute(RESTORE_LOCK_WAIT);
                }
                saved = false;
            }
        }

        @Override
        public boolean isLockTimeout(SQLException e) {
            return e.getErrorCode() == LOCK_WAIT_TIMEOUT;
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
                s.execute(READ_UNCOMMITTED_NEXT);
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
            return holderOf(newest, row, now);
        }

        private long seconds(Duration wait) {
            return seconds(wait, zeroAllowed);
        }
    }
}
