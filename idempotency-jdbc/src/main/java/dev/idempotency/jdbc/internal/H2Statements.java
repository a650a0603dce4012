package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlErrors;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * H2 (2.x), which has no {@code ON CONFLICT} of its own: the conditional upsert is one standard
 * {@code MERGE INTO … USING (SELECT <row>) source ON <primary key> WHEN MATCHED AND <not live>
 * THEN UPDATE … WHEN NOT MATCHED THEN INSERT …}. H2 re-checks the {@code WHEN MATCHED} condition
 * after waiting for a row lock, so a concurrent take-over cannot both succeed; two concurrent
 * inserts of a new key end with one primary-key violation, which is a lost race to ask about
 * again. A lost reservation reads the winner by primary key (in-process, so the extra statement
 * costs no network round trip).
 * <p>Internal, not API: may change without notice.
 */
final class H2Statements extends Statements {

    /** Package-private for SQL.md and the query-plan tests. */
    final SqlStatement merge;
    private final SqlStatement purge;

    H2Statements(SqlCatalog catalog) {
        super(catalog);
        merge = compile("merge");
        purge = compile("purge");
    }

    @Override
    public boolean supportsStatementTimeout() {
        return false;
    }

    @Override
    public Attempt reserve(Connection c, NewRow row, Instant now) throws SQLException {
        Boolean inserted = merge(c, row, now);
        if (inserted == null) {
            return RETRY;
        }
        if (inserted) {
            return WON;
        }
        return queryRecord(c, readBack, Records.keyValues(row.key()), row.key())
                .map(record -> lostTo(record, now))
                .orElse(RETRY);
    }

    @Override
    public boolean insertCompleted(Connection c, NewRow row, Instant now) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            Boolean inserted = merge(c, row, now);
            if (inserted != null || attempt == 3) {
                return Boolean.TRUE.equals(inserted);
            }
        }
    }

    @Override
    SqlStatement purgeStatement() {
        return purge;
    }

    /** Whether the row went in; {@code null} when a concurrent insert of the same key beat it. */
    private Boolean merge(Connection c, NewRow row, Instant now) throws SQLException {
        try {
            return update(c, merge, Records.rowValues(row, now)) == 1;
        } catch (SQLException e) {
            if (SqlErrors.isUniqueViolation(e.getSQLState())) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public AtomicSession atomicSession(String tenantSetting) {
        return new Session(this);
    }

    /**
     * H2: {@code LOCK_TIMEOUT} is a session setting in milliseconds (0: no wait), read with
     * {@code LOCK_TIMEOUT()} and put back after the reservation; the isolation level is set and
     * put back through JDBC (in-process, no round trip).
     */
    static final class Session extends AtomicSession.SessionLockWait {
        private Integer sessionLockTimeout;
        private Integer isolation;

        Session(Statements sql) {
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
        public void end(Connection c) throws SQLException {
            super.end(c);
            if (isolation != null) {
                c.setTransactionIsolation(isolation);
                isolation = null;
            }
        }

        @Override
        public boolean isLockTimeout(SQLException e) {
            return SqlErrors.isLockTimeout(e.getSQLState(), e.getErrorCode());
        }

        /**
         * A dirty read: H2 2.x (MVStore) at READ UNCOMMITTED returns other sessions' uncommitted
         * rows without waiting. The level is set through JDBC and put back (in-process, no round
         * trip).
         */
        @Override
        public Holder holder(Connection c, NewRow row, Instant now) throws SQLException {
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
            return Records.holderOf(newest, row.fingerprint(), now);
        }

        private static void setLockTimeout(Connection c, long millis) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCK_TIMEOUT " + millis);
            }
        }
    }
}
