package dev.idempotency.jdbc.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;

import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.SelectField;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The SQL of each store primitive, built once per store with jOOQ and run through JDBC. What
 * every dialect says the same way lives here (the primary-key read, the owner-checked UPDATE and
 * DELETE); each dialect supplies its own atomic "insert unless a live record exists" and its
 * bounded purge.
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

    final IdempotencyTable t;
    final DSLContext ctx;

    final SqlStatement find;
    final SqlStatement readBack;
    final SqlStatement complete;
    final SqlStatement release;
    final SqlStatement renew;

    /** Seconds each store statement may run ({@link JdbcStore.Builder#statementTimeout}); 0: no limit. */
    private int timeoutSeconds;

    /** @param formatted render multi-line SQL, for reading rather than running */
    Statements(IdempotencyTable t, SQLDialect dialect, boolean formatted) {
        this.t = t;
        this.ctx = DSL.using(dialect, new Settings().withRenderSchema(true).withRenderFormatted(formatted));
        find = compile(ctx.select(t.recordColumns).from(t.table).where(t.primaryKey().and(t.isPresent())));
        readBack = compile(ctx.select(t.recordColumns).from(t.table).where(t.primaryKey()));
        // The completion leaves expires_at (indexed) as the reservation set it, so on PostgreSQL
        // it changes no indexed column and can be a heap-only-tuple update.
        complete = compile(ctx.update(t.table)
                .set(t.state, inline(IdempotencyTable.COMPLETED))
                .set(t.lockedUntil, inline(null, t.lockedUntil))
                .set(t.responseStatus, t.paramOf(t.responseStatus))
                .set(t.responseContentType, t.paramOf(t.responseContentType))
                .set(t.responseHeaders, t.paramOf(t.responseHeaders))
                .set(t.responseBody, t.paramOf(t.responseBody))
                .set(t.formatVersion, t.paramOf(t.formatVersion))
                .where(owned()));
        release = compile(ctx.deleteFrom(t.table).where(owned()));
        // The expiry follows the lease: on PostgreSQL the update stays heap-only until a handler
        // outlives its ttl, since greatest() leaves expires_at's value as it is until then.
        renew = compile(ctx.update(t.table).set(t.lockedUntil, t.paramOf(t.lockedUntil))
                .set(t.expiresAt, t.expiryAfterRenewal()).where(owned()));
    }

    final SqlStatement compile(Query query) {
        return SqlStatement.of(ctx, query, t.localTime);
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
     * {@code c} after the DDL lock: the table script (which leaves an existing table as it is),
     * {@link #newTableScripts()} for a table it creates, and the caller migration for a table
     * without the caller column (one it creates, or one from before that migration). So the
     * primary key is rebuilt once, not at every start.
     */
    public final List<String> tableScripts(Connection c) throws SQLException {
        Set<String> present = columnsIfTableExists(c);
        List<String> scripts = new ArrayList<>();
        scripts.add(Ddl.tableScript(ctx.dialect()));
        if (present.isEmpty()) {
            scripts.addAll(newTableScripts());
        }
        if (!present.contains(t.caller.getName())) {
            scripts.add(Ddl.callerScript(ctx.dialect()));
        }
        return scripts;
    }

    /** The scripts after the table script for a table {@code createTableIfMissing} creates; here none. */
    List<String> newTableScripts() {
        return List.of();
    }

    /**
     * The names of the table's columns (case-insensitive), read from the result of
     * {@code SELECT * FROM <table> WHERE 1 = 0}: the table resolves as in every statement.
     *
     * @throws SQLException when there is no such table, among other failures
     */
    public final Set<String> columns(Connection c) throws SQLException {
        Set<String> present = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        try (java.sql.Statement s = c.createStatement(); ResultSet rs = s.executeQuery(columnsProbe())) {
            ResultSetMetaData metaData = rs.getMetaData();
            for (int i = 1; i <= metaData.getColumnCount(); i++) {
                present.add(metaData.getColumnName(i));
            }
        }
        return present;
    }

    /** {@code SELECT * FROM <table> WHERE 1 = 0}, inlined: its result's columns are the table's. */
    final String columnsProbe() {
        return ctx.renderInlined(ctx.selectFrom(t.table).where(DSL.falseCondition()));
    }

    /**
     * {@link #columnsProbe()} for a client that sees a result's columns only on a row (R2DBC):
     * one row, every column of the table in it, all {@code NULL}; the table resolves the same way.
     */
    final String columnsRowProbe() {
        return ctx.renderInlined(ctx.select(t.table.asterisk()).from(DSL.selectOne().asTable("probe"))
                .leftJoin(t.table).on(DSL.falseCondition()));
    }

    /**
     * {@link #columns}, or none when the table does not exist. Here the failed probe says so; a
     * database whose transaction a failed statement aborts asks first.
     */
    Set<String> columnsIfTableExists(Connection c) throws SQLException {
        try {
            return columns(c);
        } catch (SQLException e) {
            if (SqlFailures.reasonOf(e, t.tableName.last()) == StorageUnavailableException.Reason.NOT_PROVISIONED) {
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
     * that are not live ({@link IdempotencyTable#isPurgeable}).
     */
    abstract SqlStatement purgeStatement();

    /** Deletes at most {@code limit} expired rows, never an in-flight one whose lease still runs. */
    public int purge(Connection c, Instant now, int limit) throws SQLException {
        return update(c, purgeStatement(), Map.of("now", now, "limit", limit));
    }

    /** One primary-key read: the record unless it has expired (an in-flight one whose lease runs has not). */
    public final Optional<IdempotencyRecord> find(Connection c, RecordKey key, Instant now) throws SQLException {
        Map<String, Object> values = IdempotencyTable.keyValues(key);
        values.put("now", now);
        return queryRecord(c, find, values, key);
    }

    /**
     * One UPDATE, applied only while {@code ownerToken} still holds the in-flight row; the row
     * keeps the {@code expires_at} its reservation wrote.
     */
    public final boolean complete(Connection c, RecordKey key, String ownerToken, StoredResponse response)
            throws SQLException {
        return update(c, complete, completeValues(key, ownerToken, response)) == 1;
    }

    /** The values of {@link #complete}'s UPDATE. */
    public static Map<String, Object> completeValues(RecordKey key, String ownerToken, StoredResponse response) {
        Map<String, Object> values = IdempotencyTable.keyValues(key);
        values.put("owner_token", ownerToken);
        values.put("response_status", (short) response.status());
        values.put("response_content_type", response.contentType());
        values.put("response_headers", HeaderCodec.encode(response.headers()));
        values.put("response_body", response.body());
        values.put("format_version", (short) HeaderCodec.formatVersion(response));
        return values;
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
        return update(c, release, releaseValues(key, ownerToken)) == 1;
    }

    /** The values of {@link #release}'s DELETE. */
    static Map<String, Object> releaseValues(RecordKey key, String ownerToken) {
        Map<String, Object> values = IdempotencyTable.keyValues(key);
        values.put("owner_token", ownerToken);
        return values;
    }

    /**
     * One UPDATE of the lease, only while {@code ownerToken} still holds the in-flight row; the
     * row's expiry moves to the lease's end when that is later.
     */
    public final boolean renew(Connection c, RecordKey key, String ownerToken, Instant lockedUntil) throws SQLException {
        Map<String, Object> values = IdempotencyTable.keyValues(key);
        values.put("owner_token", ownerToken);
        values.put("locked_until", lockedUntil);
        return update(c, renew, values) == 1;
    }

    /**
     * The owner check of complete, release and renew: the token this handle wrote is still there
     * and the row is still in flight. The lease is deliberately not part of it: a lapsed lease
     * that nobody took over leaves the token in place, and finishing then is exactly what a
     * retry would want. A take-over always writes a new token.
     */
    private Condition owned() {
        return t.primaryKey().and(t.ownerToken.eq(t.paramOf(t.ownerToken)))
                .and(t.state.eq(inline(IdempotencyTable.IN_FLIGHT)));
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
            return rs.next() ? Optional.of(t.read(key, rs)) : Optional.empty();
        }
    }

    /** {@code :key AS key, :tenant_id AS tenant_id, …}: the new row as a select list. */
    final List<SelectField<?>> rowAsSelectList() {
        List<SelectField<?>> values = new ArrayList<>();
        for (int i = 0; i < t.columns.size(); i++) {
            values.add(t.columnParams.get(i).as(t.columns.get(i).getUnqualifiedName()));
        }
        return values;
    }

    /** The columns a take-over rewrites: everything but the primary key. */
    final List<Field<?>> nonKeyColumns() {
        return t.columns.subList(t.primaryKeyColumns().size(), t.columns.size());
    }

    /** {@code column} qualified by the target table, for conditions next to a source of the same names. */
    final <T> Field<T> target(Field<T> column) {
        return field(t.tableName.append(column.getUnqualifiedName()), column.getDataType());
    }

    /** {@link IdempotencyTable#isNotLive} on the target table's own columns. */
    final Condition targetIsNotLive() {
        return t.isNotLive(target(t.expiresAt), target(t.state), target(t.lockedUntil));
    }

    /** The record a row describes when it is live; else a retry. */
    static Attempt lostTo(IdempotencyRecord record, Instant now) {
        return isLive(record, now) ? new Attempt.Lost(record) : RETRY;
    }

    /** {@link IdempotencyTable#isLive()}, on a record already read. */
    public static boolean isLive(IdempotencyRecord record, Instant now) {
        return record.isCompleted() ? record.expiresAt().isAfter(now) : record.leaseUntil().isAfter(now);
    }
}
