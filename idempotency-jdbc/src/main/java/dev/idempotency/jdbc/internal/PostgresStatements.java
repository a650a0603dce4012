package dev.idempotency.jdbc.internal;

import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.function;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;

import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.InsertOnConflictConditionStep;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.SelectField;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * PostgreSQL: every primitive is one statement, but for a reservation that takes a row over.
 *
 * <p>A reservation first sends the fresh-key statement: {@code WITH ins AS (INSERT … ON CONFLICT
 * DO NOTHING)}, and the row in the way as of its snapshot. It wins a new key, and answers a replay or
 * an in-flight duplicate, without locking or writing a row that exists. Only when that row is not
 * live (expired, or a lapsed lease) or was not yet visible does the take-over statement follow.
 *
 * <p>The take-over statement is one {@code WITH cur AS (primary-key read), ins AS (INSERT … SELECT …
 * WHERE NOT EXISTS (live row in cur) ON CONFLICT … DO UPDATE … WHERE <not live> RETURNING …)}
 * whose result is either the inserted (or taken-over) row, or the live row that is in the way.
 * When the key is held by a live record the INSERT is never attempted, so a replay takes no row
 * lock and writes nothing. When a concurrent transaction inserted the key after this statement's
 * snapshot, {@code ON CONFLICT} waits for it and re-checks the condition on the newest version;
 * the statement then returns no row and the caller asks again (its next snapshot sees the winner).
 * <p>Internal, not API: may change without notice.
 */
final class PostgresStatements extends Statements {

    /**
     * Where the atomic mode keeps the session's own {@code lock_timeout} while the reservation runs
     * with the caller's wait: a custom setting, transaction-local like everything else it sets.
     */
    static final String SAVED_LOCK_TIMEOUT = "idempotency.session_lock_timeout";

    /**
     * Where idempotency-vertx-sql's atomic transaction keeps the session's own
     * {@code statement_timeout} while the reservation runs under the store's
     * ({@link PostgresSql#savedAndLocalStatementTimeout}).
     */
    static final String SAVED_STATEMENT_TIMEOUT = "idempotency.session_statement_timeout";

    /** Sets the saved {@code lock_timeout} back (transaction-local), so the handler's statements wait as usual. */
    static final String RESTORE_LOCK_TIMEOUT =
            "SELECT set_config('lock_timeout', current_setting('" + SAVED_LOCK_TIMEOUT + "'), true)";

    /** The atomic transaction's settings: the saved and the bounded lock wait, the idle bound. */
    static final String ATOMIC_SETTINGS = "SELECT set_config('" + SAVED_LOCK_TIMEOUT
            + "', current_setting('lock_timeout'), true),"
            + " set_config('lock_timeout', :lock_timeout, true),"
            + " set_config('idle_in_transaction_session_timeout', :idle_timeout, true)";
    /** Appended to {@link #ATOMIC_SETTINGS} with row-level security. */
    static final String ATOMIC_TENANT_SETTING = ", set_config(:tenant_setting, :tenant, true)";
    /** A later attempt's bounded lock wait. */
    static final String ATOMIC_LOCK_TIMEOUT = "SELECT set_config('lock_timeout', :lock_timeout, true)";

    /** What the completion's deliberate failure says when its UPDATE found no row. */
    static final String RESERVATION_GONE = "idempotency: the reservation row was gone at completion";
    private static final String INVALID_TEXT_REPRESENTATION = "22P02";

    // Package-private for SQL.md and the query-plan tests, which render and explain each of them.
    final SqlStatement reserveFresh;
    final SqlStatement reserveFreshAsynchronousCommit;
    final SqlStatement reserve;
    final SqlStatement reserveAsynchronousCommit;
    final SqlStatement atomicReserve;
    final SqlStatement atomicReserveFresh;
    final PostgresInFlightLocks inFlightLocks;
    final SqlStatement atomicBegin;
    final SqlStatement atomicBeginWithTenant;
    final SqlStatement atomicAgain;
    final SqlStatement insertCompleted;
    final SqlStatement purge;
    final SqlStatement completeAndCommit;
    final SqlStatement releaseAndCommit;

    PostgresStatements(IdempotencyTable t, SQLDialect dialect, boolean formatted) {
        super(t, dialect, formatted);
        CommonTableExpression<Record> cur = name("cur").as(
                select(t.recordColumns).from(t.table).where(t.primaryKey()));
        CommonTableExpression<Record> ins = name("ins").as(
                conditionalInsert(notExists(selectOne().from(cur).where(t.isLive(cur))))
                        .returningResult(t.recordColumns.stream().map(this::target).toList()));
        List<SelectField<?>> won = new ArrayList<>();
        won.add(inline(true).as("won"));
        t.recordColumns.forEach(c -> won.add(ins.field(c)));
        List<SelectField<?>> lost = new ArrayList<>();
        lost.add(inline(false).as("won"));
        t.recordColumns.forEach(c -> lost.add(cur.field(c)));
        reserve = compile(ctx.with(cur).with(ins)
                .select(won).from(ins)
                .unionAll(select(lost).from(cur).where(t.isLive(cur))));

        // The fresh-key path: insert unless any row holds the key, else the row as this statement's
        // snapshot shows it — only then: a row deleted after the snapshot may still show while the
        // insert wins. No column of the inserted row comes back: the caller knows them.
        CommonTableExpression<?> fresh = name("ins").as(ctx.insertInto(t.table).columns(t.columns)
                .select(select(rowAsSelectList()))
                .onConflict(t.primaryKeyColumns())
                .doNothing()
                .returningResult(inline(1)));
        List<SelectField<?>> wonFresh = new ArrayList<>();
        wonFresh.add(inline(true).as("won"));
        t.recordColumns.forEach(c -> wonFresh.add(DSL.castNull(c.getDataType()).as(c.getUnqualifiedName())));
        List<SelectField<?>> inTheWay = new ArrayList<>();
        inTheWay.add(inline(false).as("won"));
        inTheWay.addAll(t.recordColumns);
        reserveFresh = compile(ctx.with(fresh)
                .select(wonFresh).from(fresh)
                .unionAll(select(inTheWay).from(t.table).where(t.primaryKey()).and(notExists(selectOne().from(fresh)))));

        // The same, and when it writes the row (the won branch yields a row exactly then) it turns
        // synchronous_commit off for its own transaction: the implicit one of an autocommit
        // statement, or the tenant transaction with row-level security. A replay writes nothing
        // and has no commit to flush anyway.
        List<SelectField<?>> wonAsync = new ArrayList<>(won);
        wonAsync.add(function("set_config", String.class, inline("synchronous_commit"), inline("off"), inline(true))
                .as("commit_mode"));
        List<SelectField<?>> lostAsync = new ArrayList<>(lost);
        lostAsync.add(inline((String) null).as("commit_mode"));
        reserveAsynchronousCommit = compile(ctx.with(cur).with(ins)
                .select(wonAsync).from(ins)
                .unionAll(select(lostAsync).from(cur).where(t.isLive(cur))));
        List<SelectField<?>> wonFreshAsync = new ArrayList<>(wonFresh);
        wonFreshAsync.add(wonAsync.get(wonAsync.size() - 1));
        List<SelectField<?>> inTheWayAsync = new ArrayList<>(inTheWay);
        inTheWayAsync.add(inline((String) null).as("commit_mode"));
        reserveFreshAsynchronousCommit = compile(ctx.with(fresh)
                .select(wonFreshAsync).from(fresh)
                .unionAll(select(inTheWayAsync).from(t.table).where(t.primaryKey()).and(notExists(selectOne().from(fresh)))));

        // The atomic mode's reservation: the same, and when it wins (the won branch yields a row
        // exactly then) it also takes the three shared advisory locks that tell a duplicate which
        // body holds the uncommitted row (PostgresInFlightLocks). They never wait (nobody takes them
        // exclusively) and end with the transaction.
        inFlightLocks = new PostgresInFlightLocks(String.join(".", t.tableName.getName()));
        List<SelectField<?>> wonLocking = new ArrayList<>(won);
        List<SelectField<?>> lostLocking = new ArrayList<>(lost);
        addAdvisoryLock(wonLocking, lostLocking, PostgresInFlightLocks.KEY_HIGH_CLASS, "key_lock_high");
        addAdvisoryLock(wonLocking, lostLocking, PostgresInFlightLocks.KEY_LOW_CLASS, "key_lock_low");
        addAdvisoryLock(wonLocking, lostLocking, PostgresInFlightLocks.BODY_CLASS, "body_lock");
        atomicReserve = compile(ctx.with(cur).with(ins)
                .select(wonLocking).from(ins)
                .unionAll(select(lostLocking).from(cur).where(t.isLive(cur))));
        // Its fresh-key path, as reserveFresh: a transaction's first attempt. A row in the way that
        // is no longer live, or that this statement's snapshot cannot show, leaves the next attempt
        // to the statement above.
        List<SelectField<?>> wonFreshLocking = new ArrayList<>(wonFresh);
        List<SelectField<?>> inTheWayLocking = new ArrayList<>(inTheWay);
        addAdvisoryLock(wonFreshLocking, inTheWayLocking, PostgresInFlightLocks.KEY_HIGH_CLASS, "key_lock_high");
        addAdvisoryLock(wonFreshLocking, inTheWayLocking, PostgresInFlightLocks.KEY_LOW_CLASS, "key_lock_low");
        addAdvisoryLock(wonFreshLocking, inTheWayLocking, PostgresInFlightLocks.BODY_CLASS, "body_lock");
        atomicReserveFresh = compile(ctx.with(fresh)
                .select(wonFreshLocking).from(fresh)
                .unionAll(select(inTheWayLocking).from(t.table).where(t.primaryKey())
                        .and(notExists(selectOne().from(fresh)))));

        // The atomic mode's first attempt: open the READ COMMITTED transaction, save the session's
        // lock_timeout, bound the wait for an uncommitted duplicate, bound the idle time (and set the
        // tenant), reserve, and give the handler its usual lock wait back: one round trip.
        String begin = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n" + ATOMIC_SETTINGS;
        atomicBegin = atomicReserveFresh.between(begin, RESTORE_LOCK_TIMEOUT);
        atomicBeginWithTenant = atomicReserveFresh.between(begin + ATOMIC_TENANT_SETTING, RESTORE_LOCK_TIMEOUT);
        // A later attempt in the same transaction (a lost race the statement could not describe).
        atomicAgain = atomicReserve.between(ATOMIC_LOCK_TIMEOUT, RESTORE_LOCK_TIMEOUT);

        // The atomic mode's completion and COMMIT in one message (one round trip). The COMMIT must
        // not run when the UPDATE found no row, so the UPDATE is wrapped in a query that fails
        // then: the cast of a non-constant text (it holds the row count, so the planner cannot fold
        // it) that is no integer. The server stops at the first error and skips the COMMIT; the
        // transaction is left aborted, for the caller to roll back.
        completeAndCommit = complete.wrapped("WITH completed AS (\n",
                        "\nRETURNING 1)\nSELECT CASE WHEN count(*) = 1 THEN 1 ELSE CAST('" + RESERVATION_GONE
                                + " ' || count(*) AS integer) END AS completed FROM completed")
                .followedBy("COMMIT");
        // The release commits whatever its DELETE found: the handler's writes stay.
        releaseAndCommit = release.followedBy("COMMIT");

        insertCompleted = compile(conditionalInsert(
                notExists(selectOne().from(t.table).where(t.primaryKey().and(t.isLive())))));

        // A batch is the first :limit expired rows in expiry order, read through the expiry index
        // whatever the planner's statistics say (without the order a tenth of expired rows made it
        // scan the heap, and a batch that finds nothing read all of it), and deleted by their
        // physical address (a TID scan, no join against the table). The rows stay locked from the
        // SELECT to the DELETE, so their addresses cannot move; SKIP LOCKED lets purges of several
        // application instances run side by side.
        Field<Object> ctid = field(name("ctid"));
        purge = compile(ctx.deleteFrom(t.table)
                .where(DSL.condition("{0} = ANY(ARRAY({1}))", ctid,
                        select(ctid)
                                .from(t.table)
                                .where(t.isPurgeable())
                                .orderBy(t.expiresAt)
                                .limit(t.limit)
                                .forUpdate()
                                .skipLocked())));
    }

    /**
     * {@code pg_advisory_xact_lock_shared(<classId>, :<name>) AS <name>} for the won branch, and a
     * {@code void} null of the same name for the lost one.
     */
    private static void addAdvisoryLock(List<SelectField<?>> won, List<SelectField<?>> lost, int classId,
                                        String name) {
        won.add(field("pg_advisory_xact_lock_shared({0}, {1})", inline(classId), param(name, SQLDataType.INTEGER))
                .as(name));
        lost.add(field("cast(null as void)").as(name));
    }

    @Override
    public Attempt reserve(Connection c, NewRow row, Instant now) throws SQLException {
        return reserve(c, row, now, false);
    }

    @Override
    public Attempt reserve(Connection c, NewRow row, Instant now, boolean asynchronousCommit) throws SQLException {
        Map<String, Object> values = IdempotencyTable.rowValues(row, now);
        Attempt fresh = attempt(c, asynchronousCommit ? reserveFreshAsynchronousCommit : reserveFresh, values, row, now);
        return fresh != RETRY ? fresh
                : attempt(c, asynchronousCommit ? reserveAsynchronousCommit : reserve, values, row, now);
    }

    private Attempt attempt(Connection c, SqlStatement statement, Map<String, Object> values, NewRow row, Instant now)
            throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, values); ResultSet rs = ps.executeQuery()) {
            return attempt(rs, row, now);
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
        Map<String, Object> values = IdempotencyTable.rowValues(row, now);
        PostgresInFlightLocks.Values locks = inFlightLocks.of(row.key(), row.fingerprint());
        values.put("key_lock_high", locks.keyHigh());
        values.put("key_lock_low", locks.keyLow());
        values.put("body_lock", locks.body());
        return values;
    }

    /**
     * After a lock timeout of the atomic reservation, with its transaction rolled back: whether the
     * uncommitted holder of the key has this row's body ({@link PostgresInFlightLocks#probe}, one
     * round trip).
     */
    AtomicAttempt.Holder inFlightHolder(Connection c, NewRow row) throws SQLException {
        return inFlightLocks.probe(c, row.key(), row.fingerprint());
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
                            return attempt(rs, row, now);
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

    private Attempt attempt(ResultSet rs, NewRow row, Instant now) throws SQLException {
        if (!rs.next()) {
            return RETRY;
        }
        return rs.getBoolean("won") ? WON : lostTo(t.read(row.key(), rs), now);
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
        try (PreparedStatement ps = prepare(c, completeAndCommit, completeValues(key, ownerToken, response))) {
            ps.execute(); // pgJDBC reads every result before it returns: a failed COMMIT throws here
            return true;
        } catch (SQLException e) {
            if (isReservationGone(e)) {
                c.rollback();
                return false;
            }
            throw e;
        }
    }

    /** The release's DELETE and the COMMIT in one round trip; whether the DELETE found the row. */
    @Override
    public boolean releaseAndCommit(Connection c, RecordKey key, String ownerToken) throws SQLException {
        try (PreparedStatement ps = prepare(c, releaseAndCommit, releaseValues(key, ownerToken))) {
            ps.execute();
            return ps.getUpdateCount() == 1;
        }
    }

    /** The deliberate failure of {@link #completeAndCommit} when its UPDATE found no row. */
    static boolean isReservationGone(SQLException e) {
        return INVALID_TEXT_REPRESENTATION.equals(e.getSQLState()) && e.getMessage() != null
                && e.getMessage().contains(RESERVATION_GONE);
    }

    @Override
    public boolean insertCompleted(Connection c, NewRow row, Instant now) throws SQLException {
        return update(c, insertCompleted, IdempotencyTable.rowValues(row, now)) == 1;
    }

    @Override
    SqlStatement purgeStatement() {
        return purge;
    }

    /**
     * {@code INSERT … SELECT <row> WHERE <no live row in this statement's snapshot> ON CONFLICT
     * … DO UPDATE <take over> WHERE <the newest version is not live>}. The first test spares a
     * replay the row lock; the second is what makes it atomic.
     */
    private InsertOnConflictConditionStep<Record> conditionalInsert(Condition noLiveRow) {
        Map<Field<?>, Field<?>> takeOver = new LinkedHashMap<>();
        nonKeyColumns().forEach(c -> takeOver.put(c, excluded(c)));
        return ctx.insertInto(t.table).columns(t.columns)
                .select(select(rowAsSelectList()).where(noLiveRow))
                .onConflict(t.primaryKeyColumns())
                .doUpdate()
                .set(takeOver)
                .where(targetIsNotLive());
    }

    @Override
    public boolean supportsRowLevelSecurity() {
        return true;
    }

    @Override
    public boolean supportsAsynchronousReservationCommit() {
        return true;
    }

    /**
     * For a table being created here, the fillfactor that keeps room for HOT completions
     * ({@code V3__idempotency_keys_fillfactor.sql}); an existing table's fillfactor is left as its
     * owner set it.
     */
    @Override
    List<String> newTableScripts() {
        return List.of(Ddl.fillfactorScript());
    }

    /** Asks {@code to_regclass} first: a failed probe would abort the DDL's transaction. */
    @Override
    Set<String> columnsIfTableExists(Connection c) throws SQLException {
        return tableExists(c) ? columns(c) : Set.of();
    }

    private boolean tableExists(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select to_regclass(?) is not null")) {
            ps.setString(1, DSL.using(ctx.dialect()).render(t.tableName));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Instances that start together create the table one after the other. */
    @Override
    public String ddlLock() {
        return "SELECT pg_advisory_xact_lock(" + Ddl.DEFAULT_TABLE.hashCode() + ")";
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
            return PostgresSql.isLockTimeout(e.getSQLState());
        }

        /**
         * The uncommitted row cannot be read at any isolation level; the advisory locks its
         * reservation took can ({@link PostgresInFlightLocks}): one round trip.
         */
        @Override
        public Holder holder(Connection c, NewRow row, Instant now) throws SQLException {
            return sql.inFlightHolder(c, row);
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
}
