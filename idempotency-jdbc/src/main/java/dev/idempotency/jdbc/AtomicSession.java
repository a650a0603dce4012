package dev.idempotency.jdbc;

import dev.idempotency.core.store.IdempotencyRecord;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.jooq.SQLDialect;

/**
 * What the atomic mode does to one pooled connection, per dialect: open a READ COMMITTED
 * transaction, bound how long the reservation may wait for another transaction's row lock, give
 * the handler the connection's usual lock wait back once the reservation is in place, tell a
 * duplicate whose wait ran out which body holds the key, and leave the connection as the pool lent
 * it.
 *
 * <p>One instance per reservation attempt; it remembers what it changed so that it can put it back.
 */
abstract class AtomicSession {

    /** Serialization failures and deadlocks: the whole transaction is gone, start over. */
    private static final Set<String> START_OVER_STATES = Set.of("40001", "40P01");

    private boolean autoCommit = true;

    static AtomicSession open(SQLDialect dialect, Statements sql, String tenantSetting) {
        if (Dialects.isPostgres(dialect)) {
            if (!(sql instanceof PostgresStatements postgres)) {
                throw new IllegalArgumentException("The atomic mode on PostgreSQL needs PostgreSQL's statements");
            }
            return new Postgres(postgres, tenantSetting);
        }
        if (Dialects.isMySqlFamily(dialect)) {
            return new MySql(sql, dialect.family() == SQLDialect.MARIADB);
        }
        if (Dialects.isH2(dialect)) {
            return new H2(sql);
        }
        throw new IllegalArgumentException("Unsupported dialect " + dialect);
    }

    /**
     * Opens the transaction on {@code c} — autocommit off, READ COMMITTED, lock waits bounded by
     * {@code wait}; on PostgreSQL also the idle timeout and, with row-level security, the tenant —
     * and makes the first reservation attempt in it. When it is won, the handler's statements get
     * the connection's usual lock wait back.
     */
    final Statements.Attempt begin(Connection c, NewRow row, Instant now, Duration wait, Duration lease)
            throws SQLException {
        autoCommit = c.getAutoCommit();
        return firstAttempt(c, row, now, wait, lease);
    }

    abstract Statements.Attempt firstAttempt(Connection c, NewRow row, Instant now, Duration wait, Duration lease)
            throws SQLException;

    /**
     * Another attempt in the same transaction after a race the statement could not describe, its
     * lock wait bounded again by what is left of the caller's {@code wait}.
     */
    abstract Statements.Attempt nextAttempt(Connection c, NewRow row, Instant now, Duration wait) throws SQLException;

    /** The reservation statement gave up waiting for another transaction's lock on the key. */
    abstract boolean isLockTimeout(SQLException e);

    /**
     * After {@link #isLockTimeout}, once the transaction is rolled back and {@link #end} has put the
     * session back: the fingerprint of the uncommitted request that holds the key, as far as this
     * dialect can tell without waiting — {@code row}'s own when the holder has the same body, another
     * one when it has a different body; empty when nobody holds the key any more, or when what is
     * there cannot be answered from (an uncommitted completion): the caller asks again.
     *
     * <p>Never a replay: nothing read here may be uncommitted data the engine would send to a client.
     */
    abstract Optional<String> holdersFingerprint(Connection c, NewRow row, Instant now) throws SQLException;

    /**
     * The fingerprint the in-flight record carries when PostgreSQL can tell that the holder's body
     * differs but not what it is: not a SHA-256 in hex, so it equals no request's fingerprint.
     */
    static final String ANOTHER_BODY = "(another request body, not yet committed)";

    /**
     * From the newest version of the key's row, committed or not (a dirty read): whose body holds
     * the key. A row that is not live holds nothing (a rolled-back take-over leaves the old one). A
     * completed row with this body may still roll back, so it is no replay: ask again, which answers
     * from committed data.
     */
    static Optional<String> holderOf(Optional<IdempotencyRecord> newest, NewRow row, Instant now) {
        if (newest.isEmpty() || !Statements.isLive(newest.get(), now)) {
            return Optional.empty();
        }
        IdempotencyRecord record = newest.get();
        if (record.isCompleted() && record.fingerprint().equals(row.fingerprint())) {
            return Optional.empty();
        }
        return Optional.of(record.fingerprint());
    }

    /** The database rolled the whole transaction back (deadlock, serialization failure): start over. */
    boolean mustStartOver(SQLException e) {
        return START_OVER_STATES.contains(e.getSQLState());
    }

    /**
     * After the commit or rollback: puts back what {@link #begin} changed on the session, so the
     * pool gets the connection as it lent it.
     */
    void end(Connection c) throws SQLException {
        if (c.getAutoCommit() != autoCommit) {
            c.setAutoCommit(autoCommit);
        }
    }

    static long millis(Duration d) {
        return Math.max(0, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }

    /**
     * PostgreSQL: everything is transaction-local ({@code SET TRANSACTION}, {@code set_config(…,
     * true)}), so the commit or rollback undoes it, and each attempt is one round trip: the set-up,
     * the reservation and the restored lock wait travel as one multi-statement string
     * ({@link PostgresStatements#reserveInNewTransaction}). The session's own {@code lock_timeout}
     * is kept server-side meanwhile, in a transaction-local custom setting.
     */
    static final class Postgres extends AtomicSession {
        private static final String LOCK_NOT_AVAILABLE = "55P03";

        private final PostgresStatements sql;
        private final String tenantSetting;

        Postgres(PostgresStatements sql, String tenantSetting) {
            this.sql = sql;
            this.tenantSetting = tenantSetting;
        }

        @Override
        Statements.Attempt firstAttempt(Connection c, NewRow row, Instant now, Duration wait, Duration lease)
                throws SQLException {
            c.setAutoCommit(false);
            // A request whose handler hangs or whose process lost its way must not hold the row
            // lock and the connection forever: the server ends the session once it has sat idle
            // inside the transaction for a whole lease.
            String idleTimeout = Math.max(1, millis(lease)) + "ms";
            return sql.reserveInNewTransaction(c, row, now, lockTimeout(wait), idleTimeout, tenantSetting,
                    row.key().tenant());
        }

        @Override
        Statements.Attempt nextAttempt(Connection c, NewRow row, Instant now, Duration wait) throws SQLException {
            return sql.reserveAgainInTransaction(c, row, now, lockTimeout(wait));
        }

        @Override
        boolean isLockTimeout(SQLException e) {
            return LOCK_NOT_AVAILABLE.equals(e.getSQLState());
        }

        /**
         * The uncommitted row cannot be read at any isolation level; the advisory locks its
         * reservation took can ({@link PostgresInFlightLocks}): one round trip.
         */
        @Override
        Optional<String> holdersFingerprint(Connection c, NewRow row, Instant now) throws SQLException {
            return switch (sql.inFlightHolder(c, row)) {
                case SAME_BODY -> Optional.of(row.fingerprint());
                case OTHER_BODY -> Optional.of(ANOTHER_BODY);
                case NONE -> Optional.empty();
            };
        }

        /**
         * {@code 0} would mean "wait forever", and a timeout of a millisecond or two also gives up
         * on incidental waits that have nothing to do with a duplicate (the relation-extension lock
         * while many transactions insert at once), turning fresh keys into 409s: "no wait" is
         * therefore {@value #NO_WAIT_MILLIS} ms, still far below any handler's run time.
         */
        private static String lockTimeout(Duration wait) {
            return Math.max(NO_WAIT_MILLIS, millis(wait)) + "ms";
        }

        private static final long NO_WAIT_MILLIS = 50;
    }

    /**
     * MariaDB, MySQL and H2: the lock wait is a session setting, so it is set, saved and put back
     * by statements of its own around the reservation statement.
     */
    abstract static class SessionLockWait extends AtomicSession {
        final Statements sql;

        SessionLockWait(Statements sql) {
            this.sql = sql;
        }

        @Override
        final Statements.Attempt firstAttempt(Connection c, NewRow row, Instant now, Duration wait, Duration lease)
                throws SQLException {
            beginTransaction(c, wait);
            return reserveAndRestore(c, row, now);
        }

        @Override
        final Statements.Attempt nextAttempt(Connection c, NewRow row, Instant now, Duration wait)
                throws SQLException {
            lockWait(c, wait);
            return reserveAndRestore(c, row, now);
        }

        private Statements.Attempt reserveAndRestore(Connection c, NewRow row, Instant now) throws SQLException {
            Statements.Attempt result = sql.reserve(c, row, now);
            if (result instanceof Statements.Attempt.Won) {
                restoreLockWait(c);
            }
            return result;
        }

        /** Autocommit off, READ COMMITTED, lock waits bounded by {@code wait}. */
        abstract void beginTransaction(Connection c, Duration wait) throws SQLException;

        /** Bounds the next lock wait again, to what is left of the caller's {@code wait}. */
        abstract void lockWait(Connection c, Duration wait) throws SQLException;

        /** The reservation is in place: the handler's statements get the connection's usual lock wait. */
        abstract void restoreLockWait(Connection c) throws SQLException;

        @Override
        void end(Connection c) throws SQLException {
            restoreLockWait(c);
            super.end(c);
        }

        /** The key's row by primary key, at whatever isolation the caller arranged. */
        final Optional<IdempotencyRecord> readRow(Connection c, NewRow row) throws SQLException {
            return sql.queryRecord(c, sql.readBack, IdempotencyTable.keyValues(row.key()), row.key());
        }
    }

    /**
     * MariaDB and MySQL: {@code innodb_lock_wait_timeout} is a session variable in whole seconds
     * (MariaDB accepts 0, no wait; MySQL's minimum is 1 s), saved in a user variable and put back
     * after the reservation. {@code SET TRANSACTION ISOLATION LEVEL} without {@code SESSION}
     * applies to the next transaction only, so it needs no undoing.
     */
    static final class MySql extends SessionLockWait {
        private static final int LOCK_WAIT_TIMEOUT = 1205;

        private final boolean zeroAllowed;
        private boolean saved;

        MySql(Statements sql, boolean zeroAllowed) {
            super(sql);
            this.zeroAllowed = zeroAllowed;
        }

        @Override
        void beginTransaction(Connection c, Duration wait) throws SQLException {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET @idempotency_lock_wait_timeout = @@session.innodb_lock_wait_timeout,"
                        + " SESSION innodb_lock_wait_timeout = " + seconds(wait));
                saved = true;
                s.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
            }
        }

        @Override
        void lockWait(Connection c, Duration wait) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION innodb_lock_wait_timeout = " + seconds(wait));
            }
        }

        @Override
        void restoreLockWait(Connection c) throws SQLException {
            if (saved) {
                try (Statement s = c.createStatement()) {
                    s.execute("SET SESSION innodb_lock_wait_timeout = @idempotency_lock_wait_timeout");
                }
                saved = false;
            }
        }

        @Override
        boolean isLockTimeout(SQLException e) {
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
        Optional<String> holdersFingerprint(Connection c, NewRow row, Instant now) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
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
            long seconds = (millis(wait) + 999) / 1000;
            return Math.max(zeroAllowed ? 0 : 1, seconds);
        }
    }

    /**
     * H2: {@code LOCK_TIMEOUT} is a session setting in milliseconds (0: no wait), read with
     * {@code LOCK_TIMEOUT()} and put back after the reservation; the isolation level is set and
     * put back through JDBC (in-process, no round trip).
     */
    static final class H2 extends SessionLockWait {
        private static final int LOCK_TIMEOUT = 50200;

        private Integer sessionLockTimeout;
        private Integer isolation;

        H2(Statements sql) {
            super(sql);
        }

        @Override
        void beginTransaction(Connection c, Duration wait) throws SQLException {
            int current = c.getTransactionIsolation();
            if (current != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                isolation = current;
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT LOCK_TIMEOUT()")) {
                rs.next();
                sessionLockTimeout = rs.getInt(1);
            }
            lockWait(c, wait);
        }

        @Override
        void lockWait(Connection c, Duration wait) throws SQLException {
            setLockTimeout(c, millis(wait));
        }

        @Override
        void restoreLockWait(Connection c) throws SQLException {
            if (sessionLockTimeout != null) {
                setLockTimeout(c, sessionLockTimeout);
                sessionLockTimeout = null;
            }
        }

        @Override
        void end(Connection c) throws SQLException {
            super.end(c);
            if (isolation != null) {
                c.setTransactionIsolation(isolation);
                isolation = null;
            }
        }

        @Override
        boolean isLockTimeout(SQLException e) {
            return e.getErrorCode() == LOCK_TIMEOUT;
        }

        /**
         * A dirty read: H2 2.x (MVStore) at READ UNCOMMITTED returns other sessions' uncommitted
         * rows without waiting. The level is set through JDBC and put back (in-process, no round
         * trip).
         */
        @Override
        Optional<String> holdersFingerprint(Connection c, NewRow row, Instant now) throws SQLException {
            int level = c.getTransactionIsolation();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
            Optional<IdempotencyRecord> newest;
            try {
                newest = readRow(c, row);
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            } finally {
                c.setTransactionIsolation(level);
            }
            return holderOf(newest, row, now);
        }

        private static void setLockTimeout(Connection c, long millis) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCK_TIMEOUT " + millis);
            }
        }
    }
}
