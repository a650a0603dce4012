package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.AtomicSql;
import dev.idempotency.sql.InFlightLocks;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL: every primitive is one statement, but for a reservation that takes a row over.
 *
 * <p>A reservation first sends the fresh-key statement ({@code reserveFresh}: {@code WITH ins AS
 * (INSERT … ON CONFLICT DO NOTHING)}, and the row in the way as of its snapshot). It wins a new
 * key, and answers a replay or an in-flight duplicate, without locking or writing a row that
 * exists. Only when that row is not live (expired, or a lapsed lease) or was not yet visible does
 * the take-over statement ({@code reserve}) follow: its result is either the inserted (or
 * taken-over) row, or the live row in the way; when a concurrent transaction inserted the key
 * after its snapshot, {@code ON CONFLICT} waits for it and re-checks, the statement returns no row
 * and the caller asks again.
 * <p>Internal, not API: may change without notice.
 */
final class PostgresStatements extends Statements {

    // Package-private for SQL.md and the query-plan tests, which render and explain each of them.
    final SqlStatement reserveFresh;
    final SqlStatement reserveFreshAsynchronousCommit;
    final SqlStatement reserve;
    final SqlStatement reserveAsynchronousCommit;
    final SqlStatement atomicReserve;
    final SqlStatement atomicReserveFresh;
    final SqlStatement atomicBegin;
    final SqlStatement atomicBeginWithTenant;
    final SqlStatement atomicAgain;
    final SqlStatement insertCompleted;
    final SqlStatement purge;
    final SqlStatement completeAndCommit;
    final SqlStatement releaseAndCommit;
    final SqlStatement inFlightProbe;
    private final SqlStatement tableExists;
    private final InFlightLocks inFlightLocks;

    PostgresStatements(SqlCatalog catalog) {
        super(catalog);
        reserveFresh = compile("reserveFresh");
        reserveFreshAsynchronousCommit = compile("reserveFreshAsynchronousCommit");
        reserve = compile("reserve");
        reserveAsynchronousCommit = compile("reserveAsynchronousCommit");
        atomicReserve = compile("atomicReserve");
        atomicReserveFresh = compile("atomicReserveFresh");
        atomicBegin = compile("atomicBegin");
        atomicBeginWithTenant = compile("atomicBeginWithTenant");
        atomicAgain = compile("atomicAgain");
        insertCompleted = compile("insertCompleted");
        purge = compile("purge");
        completeAndCommit = compile("completeAndCommit");
        releaseAndCommit = compile("releaseAndCommit");
        inFlightProbe = compile("inFlightProbe");
        tableExists = compile("tableExists");
        inFlightLocks = new InFlightLocks(catalog.table().label());
    }

    @Override
    public Attempt reserve(Connection c, NewRow row, Instant now) throws SQLException {
        return reserve(c, row, now, false);
    }

    @Override
    public Attempt reserve(Connection c, NewRow row, Instant now, boolean asynchronousCommit) throws SQLException {
        Map<String, Object> values = Records.rowValues(row, now);
        Attempt fresh = attempt(c, asynchronousCommit ? reserveFreshAsynchronousCommit : reserveFresh, values, row, now);
        return fresh != RETRY ? fresh
                : attempt(c, asynchronousCommit ? reserveAsynchronousCommit : reserve, values, row, now);
    }

    private Attempt attempt(Connection c, SqlStatement statement, Map<String, Object> values, NewRow row, Instant now)
            throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, values); ResultSet rs = ps.executeQuery()) {
            return attempt(statement, rs, row, now);
        }
    }

    /**
     * The atomic mode's first reservation attempt, on a connection with autocommit off: one
     * multi-statement string, so pgJDBC sends its {@code BEGIN}, the transaction's settings, the
     * reservation and the restored lock wait in one round trip. The server runs them in order and
     * stops at the first error (the transaction is then aborted, as it would be anyway).
     *
     * @param lockTimeout the wait for another transaction's row lock on the key ({@code lock_timeout})
     * @param idleTimeout {@code idle_in_transaction_session_timeout}
     * @param tenantSetting with {@code tenant}, a setting to set for row-level security; or {@code null}
     */
    Attempt reserveInNewTransaction(Connection c, NewRow row, Instant now, String lockTimeout, String idleTimeout,
                                    String tenantSetting, String tenant) throws SQLException {
        Map<String, Object> values = atomicValues(row, now);
        values.put("lock_timeout", lockTimeout);
        values.put("idle_timeout", idleTimeout);
        boolean withTenant = tenantSetting != null && tenant != null;
        if (withTenant) {
            values.put("tenant_setting", tenantSetting);
            values.put("tenant", tenant);
        }
        return runComposite(c, withTenant ? atomicBeginWithTenant : atomicBegin, values, row, now);
    }

    /** A later attempt in the same transaction: the lock wait, the reservation and the restore, one round trip. */
    Attempt reserveAgainInTransaction(Connection c, NewRow row, Instant now, String lockTimeout) throws SQLException {
        Map<String, Object> values = atomicValues(row, now);
        values.put("lock_timeout", lockTimeout);
        return runComposite(c, atomicAgain, values, row, now);
    }

    /** The row's values and those of the three advisory locks a won atomic reservation takes. */
    private Map<String, Object> atomicValues(NewRow row, Instant now) {
        Map<String, Object> values = Records.rowValues(row, now);
        values.putAll(inFlightLocks.values(row.key(), row.fingerprint()));
        return values;
    }

    /**
     * After a lock timeout of the atomic reservation, with its transaction rolled back: whether the
     * uncommitted holder of the key has this row's body ({@link InFlightLocks}: one read of
     * {@code pg_locks}, in autocommit mode one statement; otherwise rolled back after).
     */
    Holder inFlightHolder(Connection c, NewRow row) throws SQLException {
        try (PreparedStatement ps = inFlightProbe.prepare(c, inFlightLocks.values(row.key(), row.fingerprint()));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return InFlightLocks.holder(rs.getBoolean("same_body"), rs.getBoolean("key_held"));
        } finally {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        }
    }

    /** Runs {@code before; reserve; after}, whose reservation rows are the second result set. */
    private Attempt runComposite(Connection c, SqlStatement composite, Map<String, Object> values, NewRow row,
                                 Instant now) throws SQLException {
        try (PreparedStatement ps = prepare(c, composite, values)) {
            boolean resultSet = ps.execute();
            int seen = 0;
            while (true) {
                if (resultSet) {
                    if (++seen == 2) {
                        try (ResultSet rs = ps.getResultSet()) {
                            return attempt(composite, rs, row, now);
                        }
                    }
                } else if (ps.getUpdateCount() == -1) {
                    throw new IllegalStateException("The reservation's rows are missing from the results of: "
                            + composite.namedSql);
                }
                resultSet = ps.getMoreResults();
            }
        }
    }

    private static Attempt attempt(SqlStatement statement, ResultSet rs, NewRow row, Instant now) throws SQLException {
        if (!rs.next()) {
            return RETRY;
        }
        return rs.getBoolean("won") ? WON : lostTo(statement.read(row.key(), rs), now);
    }

    /**
     * The completion's UPDATE and the COMMIT in one round trip (the statement {@code completeAndCommit}).
     * When the UPDATE finds no row the statement fails on purpose before the COMMIT; that failure
     * is told apart from any other by its SQLState and marker, the transaction rolled back, and the
     * answer is {@code false}, as with separate statements.
     */
    @Override
    public boolean completeAndCommit(Connection c, RecordKey key, String ownerToken, StoredResponse response)
            throws SQLException {
        try (PreparedStatement ps = prepare(c, completeAndCommit, Records.completeValues(key, ownerToken, response))) {
            ps.execute(); // pgJDBC reads every result before it returns: a failed COMMIT throws here
            return true;
        } catch (SQLException e) {
            if (SqlErrors.isReservationGone(e.getSQLState(), e.getMessage())) {
                c.rollback();
                return false;
            }
            throw e;
        }
    }

    /** The release's DELETE and the COMMIT in one round trip; whether the DELETE found the row. */
    @Override
    public boolean releaseAndCommit(Connection c, RecordKey key, String ownerToken) throws SQLException {
        try (PreparedStatement ps = prepare(c, releaseAndCommit, Records.ownerValues(key, ownerToken))) {
            ps.execute();
            return ps.getUpdateCount() == 1;
        }
    }

    @Override
    public boolean insertCompleted(Connection c, NewRow row, Instant now) throws SQLException {
        return update(c, insertCompleted, Records.rowValues(row, now)) == 1;
    }

    @Override
    SqlStatement purgeStatement() {
        return purge;
    }

    @Override
    public boolean supportsRowLevelSecurity() {
        return true;
    }

    @Override
    public boolean supportsAsynchronousReservationCommit() {
        return true;
    }

    /** Asks {@code to_regclass} first: a failed probe would abort the DDL's transaction. */
    @Override
    Set<String> columnsIfTableExists(Connection c) throws SQLException {
        try (PreparedStatement ps = tableExists.prepare(c,
                Map.of("quoted_table", catalog.table().quoted(SqlDialect.POSTGRES)));
             ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getBoolean(1) ? columns(c) : Set.of();
        }
    }

    /** Instances that start together create the table one after the other. */
    @Override
    public String ddlLock() {
        return catalog.sql("ddlLock");
    }

    @Override
    public AtomicSession atomicSession(String tenantSetting) {
        return new Session(this, tenantSetting);
    }

    /**
     * PostgreSQL: everything is transaction-local ({@code SET TRANSACTION}, {@code set_config(…,
     * true)}), so the commit or rollback undoes it, and each attempt is one round trip: the set-up,
     * the reservation and the restored lock wait travel as one multi-statement string
     * ({@link PostgresStatements#reserveInNewTransaction}). The session's own {@code lock_timeout}
     * is kept server-side meanwhile, in a transaction-local custom setting.
     */
    static final class Session extends AtomicSession {
        private final PostgresStatements sql;
        private final String tenantSetting;

        Session(PostgresStatements sql, String tenantSetting) {
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
        public Statements.Attempt nextAttempt(Connection c, NewRow row, Instant now, Duration wait) throws SQLException {
            return sql.reserveAgainInTransaction(c, row, now, lockTimeout(wait));
        }

        @Override
        public boolean isLockTimeout(SQLException e) {
            return SqlErrors.isLockTimeout(e.getSQLState(), 0);
        }

        /**
         * The uncommitted row cannot be read at any isolation level; the advisory locks its
         * reservation took can ({@link InFlightLocks}): one round trip.
         */
        @Override
        public Holder holder(Connection c, NewRow row, Instant now) throws SQLException {
            return sql.inFlightHolder(c, row);
        }

        /**
         * {@code 0} would mean "wait forever", and a timeout of a millisecond or two also gives up
         * on incidental waits that have nothing to do with a duplicate (the relation-extension lock
         * while many transactions insert at once), turning fresh keys into 409s: "no wait" is
         * therefore {@value AtomicSql#NO_WAIT_MILLIS} ms, still far below any handler's run time.
         */
        private static String lockTimeout(Duration wait) {
            return Math.max(AtomicSql.NO_WAIT_MILLIS, millis(wait)) + "ms";
        }
    }
}
