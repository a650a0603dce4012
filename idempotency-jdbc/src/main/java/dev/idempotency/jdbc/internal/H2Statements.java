package dev.idempotency.jdbc.internal;

import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.IdempotencyRecord;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;

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

    /** SQLState of a unique or primary-key violation. */
    private static final String UNIQUE_VIOLATION = "23505";

    /** Package-private for SQL.md and the query-plan tests. */
    final SqlStatement merge;
    private final SqlStatement purge;

    H2Statements(IdempotencyTable t, SQLDialect dialect, boolean formatted) {
        super(t, dialect, formatted);
        Table<?> source = select(rowAsSelectList()).asTable("source");
        Map<Field<?>, Field<?>> takeOver = new LinkedHashMap<>();
        nonKeyColumns().forEach(c -> takeOver.put(c, source.field(c)));
        merge = compile(ctx.mergeInto(t.table)
                .using(source)
                .on(target(t.key).eq(source.field(t.key))
                        .and(target(t.tenantId).eq(source.field(t.tenantId)))
                        .and(target(t.caller).eq(source.field(t.caller)))
                        .and(target(t.method).eq(source.field(t.method)))
                        .and(target(t.path).eq(source.field(t.path))))
                .whenMatchedAnd(targetIsNotLive()).thenUpdate().set(takeOver)
                .whenNotMatchedThenInsert(t.columns)
                .values(t.columns.stream().map(source::field).toList()));
        purge = compile(ctx.deleteFrom(t.table)
                .where(row(t.key, t.tenantId, t.caller, t.method, t.path).in(
                        select(t.key, t.tenantId, t.caller, t.method, t.path)
                                .from(t.table)
                                .where(t.isPurgeable())
                                .orderBy(t.expiresAt)
                                .limit(t.limit))));
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
        return queryRecord(c, readBack, IdempotencyTable.keyValues(row.key()), row.key())
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
            return update(c, merge, IdempotencyTable.rowValues(row, now)) == 1;
        } catch (SQLException e) {
            if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
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
        private static final int LOCK_TIMEOUT = 50200;

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
            return e.getErrorCode() == LOCK_TIMEOUT;
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
            return holderOf(newest, row, now);
        }

        private static void setLockTimeout(Connection c, long millis) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCK_TIMEOUT " + millis);
            }
        }
    }
}
