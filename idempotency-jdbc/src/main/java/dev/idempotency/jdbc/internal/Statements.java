package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The catalog's statements ({@link SqlCatalog}) for each store primitive, run through JDBC. What
 * every dialect does the same way lives here (the primary-key read, the owner-checked UPDATE and
 * DELETE); each dialect runs its own atomic "insert unless a live record exists" and its bounded
 * purge.
 *
 * <p>Every method runs exactly the statements its Javadoc names, on the connection it is given,
 * so the caller decides whether they share a transaction (row-level security does).
 * <p>Internal, not API: may change without notice.
 */
public abstract class Statements {

    /** The result of one reservation attempt. */
    public sealed interface Attempt {
        /** This caller's row is in place. */
        record Won() implements Attempt {
        }

        /** A live record is in the way. */
        record Lost(IdempotencyRecord record) implements Attempt {
        }

        /**
         * The statement lost a race it cannot describe (the row it conflicted with was not yet
         * visible, or went away again); trying again settles it.
         */
        record Retry() implements Attempt {
        }
    }

    static final Attempt WON = new Attempt.Won();
    static final Attempt RETRY = new Attempt.Retry();

    final SqlCatalog catalog;

    final SqlStatement find;
    final SqlStatement readBack;
    final SqlStatement complete;
    final SqlStatement release;
    final SqlStatement renew;

    /** Seconds each store statement may run ({@link JdbcStore.Builder#statementTimeout}); 0: no limit. */
    private int timeoutSeconds;

    Statements(SqlCatalog catalog) {
        this.catalog = catalog;
        find = compile("find");
        readBack = compile("readBack");
        // The completion leaves expires_at (indexed) as the reservation set it, so on PostgreSQL
        // it changes no indexed column and can be a heap-only-tuple update.
        complete = compile("complete");
        release = compile("release");
        // The expiry follows the lease (greatest()): on PostgreSQL the update stays heap-only
        // until a handler outlives its ttl.
        renew = compile("renew");
    }

    /** The catalog's statement {@code name}, rendered for JDBC. */
    final SqlStatement compile(String name) {
        return new SqlStatement(catalog.sql(name), catalog.dialect().localTime());
    }

    /** Bounds every later statement of this store to {@code seconds} (0: no limit); set once, before use. */
    public final void statementTimeout(int seconds) {
        this.timeoutSeconds = seconds;
    }

    /**
     * Whether {@link JdbcStore.Builder#statementTimeout} is applied: true but on H2, where JDBC's
     * query timeout is a setting of the whole session (it would reach the application's own
     * statements on a pooled connection) and waits are bounded by H2's {@code LOCK_TIMEOUT} anyway.
     */
    public boolean supportsStatementTimeout() {
        return true;
    }

    /** {@code statement} prepared on {@code c} with {@code values}, under the store's statement timeout. */
    final PreparedStatement prepare(Connection c, SqlStatement statement, Map<String, ?> values) throws SQLException {
        return bounded(statement.prepare(c, values));
    }

    /** {@code s} under the store's statement timeout; closed if that cannot be set. */
    final <S extends java.sql.Statement> S bounded(S s) throws SQLException {
        if (timeoutSeconds > 0) {
            try {
                s.setQueryTimeout(timeoutSeconds);
            } catch (SQLException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
        return s;
    }

    /**
     * Whether a row-level-security policy can be fed the tenant: a setting set per transaction
     * ({@link JdbcStore.Builder#rowLevelSecurity}). PostgreSQL only.
     */
    public boolean supportsRowLevelSecurity() {
        return false;
    }

    /**
     * Whether the reserve mode's reservation can commit without waiting for its log flush
     * ({@link JdbcStore.Builder#asynchronousReservationCommit}). PostgreSQL only: MariaDB/MySQL can
     * relax the flush only server-wide, H2 runs in-process.
     */
    public boolean supportsAsynchronousReservationCommit() {
        return false;
    }

    /**
     * The classpath resources {@code createTableIfMissing} runs for the table itself, decided on
     * {@code c} after the DDL lock ({@link Ddl#scripts}): so the primary key is rebuilt once, not
     * at every start.
     */
    public final List<String> tableScripts(Connection c) throws SQLException {
        Set<String> present = columnsIfTableExists(c);
        return Ddl.scripts(catalog.dialect(), !present.isEmpty(), present.contains("caller"), false);
    }

    /**
     * The names of the table's columns (case-insensitive), read from the result of
     * {@code SELECT * FROM <table> WHERE 1 = 0}: the table resolves as in every statement.
     *
     * @throws SQLException when there is no such table, among other failures
     */
    public final Set<String> columns(Connection c) throws SQLException {
        Set<String> present = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        try (java.sql.Statement s = c.createStatement(); ResultSet rs = s.executeQuery(catalog.sql("columnsProbe"))) {
            ResultSetMetaData metaData = rs.getMetaData();
            for (int i = 1; i <= metaData.getColumnCount(); i++) {
                present.add(metaData.getColumnName(i));
            }
        }
        return present;
    }

    /**
     * {@link #columns}, or none when the table does not exist. Here the failed probe says so; a
     * database whose transaction a failed statement aborts asks first.
     */
    Set<String> columnsIfTableExists(Connection c) throws SQLException {
        try {
            return columns(c);
        } catch (SQLException e) {
            if (SqlFailures.reasonOf(e, catalog.table().base()) == StorageUnavailableException.Reason.NOT_PROVISIONED) {
                return Set.of();
            }
            throw e;
        }
    }

    /** A statement run first in {@code createTableIfMissing}'s transaction to serialize instances; or {@code null}. */
    public String ddlLock() {
        return null;
    }

    /** A statement that releases {@link #ddlLock()} when the transaction's end does not; or {@code null}. */
    public String ddlUnlock() {
        return null;
    }

    /** Writes {@code row} unless a live record holds its key; says who holds it otherwise. */
    public abstract Attempt reserve(Connection c, NewRow row, Instant now) throws SQLException;

    /**
     * {@link #reserve(Connection, NewRow, Instant)} for the reserve mode, whose transaction commits
     * right after it; with {@code asynchronousCommit} that commit does not wait for its WAL flush
     * when the row was written (PostgreSQL only).
     */
    public Attempt reserve(Connection c, NewRow row, Instant now, boolean asynchronousCommit) throws SQLException {
        if (asynchronousCommit) {
            throw new UnsupportedOperationException("An asynchronous commit of the reservation needs PostgreSQL");
        }
        return reserve(c, row, now);
    }

    /**
     * A fresh set-up of the atomic mode's transaction on this database, for one reservation
     * attempt ({@link AtomicSession}).
     *
     * @param tenantSetting the setting that carries the tenant for row-level security, or {@code null}
     */
    public abstract AtomicSession atomicSession(String tenantSetting);

    /** Writes the completed {@code row} unless a live record holds its key. */
    public abstract boolean insertCompleted(Connection c, NewRow row, Instant now) throws SQLException;

    /**
     * The one DELETE of a purge batch: at most {@code :limit} rows with {@code expires_at <= :now}
     * that are not live.
     */
    abstract SqlStatement purgeStatement();

    /** Deletes at most {@code limit} expired rows, never an in-flight one whose lease still runs. */
    public int purge(Connection c, Instant now, int limit) throws SQLException {
        return update(c, purgeStatement(), Map.of("now", now, "limit", limit));
    }

    /** One primary-key read: the record unless it has expired (an in-flight one whose lease runs has not). */
    public final Optional<IdempotencyRecord> find(Connection c, RecordKey key, Instant now) throws SQLException {
        Map<String, Object> values = Records.keyValues(key);
        values.put("now", now);
        return queryRecord(c, find, values, key);
    }

    /**
     * One UPDATE, applied only while {@code ownerToken} still holds the in-flight row; the row
     * keeps the {@code expires_at} its reservation wrote.
     */
    public final boolean complete(Connection c, RecordKey key, String ownerToken, StoredResponse response)
            throws SQLException {
        return update(c, complete, Records.completeValues(key, ownerToken, response)) == 1;
    }

    /**
     * The atomic mode's completion, on the connection whose transaction holds the reservation:
     * {@link #complete}'s UPDATE and, when it stored the response, COMMIT — the handler's writes
     * and the record become visible together. When the UPDATE finds no row (only this transaction
     * can see it, so the handler removed or changed it) nothing is committed: the transaction is
     * rolled back and the answer is {@code false}. Here two round trips; a dialect may do it in one.
     */
    public boolean completeAndCommit(Connection c, RecordKey key, String ownerToken, StoredResponse response)
            throws SQLException {
        if (!complete(c, key, ownerToken, response)) {
            c.rollback();
            return false;
        }
        c.commit();
        return true;
    }

    /**
     * The atomic mode's release: {@link #release}'s DELETE, then COMMIT whatever it found — the
     * handler's writes stay, only the reservation goes. Whether the DELETE found the row. Here two
     * round trips; a dialect may do it in one.
     */
    public boolean releaseAndCommit(Connection c, RecordKey key, String ownerToken) throws SQLException {
        boolean deleted = release(c, key, ownerToken);
        c.commit();
        return deleted;
    }

    /** One DELETE of the in-flight row, only while {@code ownerToken} still holds it. */
    public final boolean release(Connection c, RecordKey key, String ownerToken) throws SQLException {
        return update(c, release, Records.ownerValues(key, ownerToken)) == 1;
    }

    /**
     * One UPDATE of the lease, only while {@code ownerToken} still holds the in-flight row; the
     * row's expiry moves to the lease's end when that is later.
     */
    public final boolean renew(Connection c, RecordKey key, String ownerToken, Instant lockedUntil) throws SQLException {
        return update(c, renew, Records.renewValues(key, ownerToken, lockedUntil)) == 1;
    }

    final int update(Connection c, SqlStatement statement, Map<String, ?> values) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, values)) {
            return ps.executeUpdate();
        }
    }

    /** Runs a query for at most one record row. */
    final Optional<IdempotencyRecord> queryRecord(Connection c, SqlStatement statement, Map<String, ?> values,
                                                  RecordKey key) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, values); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(statement.read(key, rs)) : Optional.empty();
        }
    }

    /** The record a row describes when it is live; else a retry. */
    static Attempt lostTo(IdempotencyRecord record, Instant now) {
        return Records.isLive(record, now) ? new Attempt.Lost(record) : RETRY;
    }
}
