package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What the atomic mode does to one pooled connection, per dialect: open a READ COMMITTED
 * transaction, bound how long the reservation may wait for another transaction's row lock, give
 * the handler the connection's usual lock wait back once the reservation is in place, tell a
 * duplicate whose wait ran out which body holds the key, and leave the connection as the pool lent
 * it.
 *
 * <p>One instance per reservation attempt, from {@link Statements#atomicSession}: each database's
 * statements class has its own, next to the statements it sends. It remembers what it changed so
 * that it can put it back.
 * <p>Internal, not API: may change without notice.
 */
public abstract class AtomicSession {

    private boolean autoCommit = true;

    /**
     * Opens the transaction on {@code c} — autocommit off, READ COMMITTED, lock waits bounded by
     * {@code wait}; on PostgreSQL also the idle timeout and, with row-level security, the tenant —
     * and makes the first reservation attempt in it. When it is won, the handler's statements get
     * the connection's usual lock wait back.
     */
    public final Statements.Attempt begin(Connection c, NewRow row, Instant now, Duration wait, Duration lease)
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
    public abstract Statements.Attempt nextAttempt(Connection c, NewRow row, Instant now, Duration wait) throws SQLException;

    /** The reservation statement gave up waiting for another transaction's lock on the key. */
    public abstract boolean isLockTimeout(SQLException e);

    /**
     * After {@link #isLockTimeout}, once the transaction is rolled back and {@link #end} has put the
     * session back: who holds the key, as far as this dialect can tell without waiting.
     *
     * <p>Never a replay: nothing read here may be uncommitted data the engine would send to a client.
     */
    public abstract Holder holder(Connection c, NewRow row, Instant now) throws SQLException;

    /** The database rolled the whole transaction back (deadlock, serialization failure): start over. */
    public boolean mustStartOver(SQLException e) {
        return SqlErrors.mustStartOver(e.getSQLState());
    }

    /**
     * After the commit or rollback: puts back what {@link #begin} changed on the session, so the
     * pool gets the connection as it lent it.
     */
    public void end(Connection c) throws SQLException {
        if (c.getAutoCommit() != autoCommit) {
            c.setAutoCommit(autoCommit);
        }
    }

    static long millis(Duration d) {
        return Math.max(0, Math.min(Integer.MAX_VALUE, d.toMillis()));
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
        public final Statements.Attempt nextAttempt(Connection c, NewRow row, Instant now, Duration wait)
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
        public void end(Connection c) throws SQLException {
            restoreLockWait(c);
            super.end(c);
        }

        /** The key's row by primary key, at whatever isolation the caller arranged. */
        final Optional<IdempotencyRecord> readRow(Connection c, NewRow row) throws SQLException {
            return sql.queryRecord(c, sql.readBack, Records.keyValues(row.key()), row.key());
        }
    }
}
