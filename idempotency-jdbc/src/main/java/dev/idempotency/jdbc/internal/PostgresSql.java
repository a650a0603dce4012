package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.jdbc.JdbcStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.SQLDialect;

/**
 * {@link JdbcStore}'s PostgreSQL statements for another PostgreSQL client (the reactive
 * {@code idempotency-vertx-sql} store): the same jOOQ queries, rendered once with
 * {@code $1 … $n} placeholders and every bind value cast to its type ({@code cast($1 as text)}),
 * since such a client may send parameters untyped and the server would then guess {@code text}
 * for {@code SELECT $9 AS response_status}. There is one description of the SQL; this is a second rendering of it.
 *
 * <p>Each {@link Statement} names its parameters in placeholder order ({@code $1} is the first
 * name); the values are those {@link JdbcStore} binds: {@code key}, {@code tenant_id},
 * {@code caller}, {@code method}, {@code path}, the other column names, {@code now},
 * {@code limit}, and for the atomic reservation {@code key_lock_high}, {@code key_lock_low},
 * {@code body_lock} ({@link #inFlightLocks}). Instants are microsecond-truncated {@code timestamptz}, shorts
 * {@code int2}, bodies {@code bytea}, and so is {@code caller}: the bytes of
 * {@link RecordKey#caller()}'s hex digits ({@link #callerBytes}), none for an anonymous caller.
 * <p>Internal, not API: may change without notice.
 */
public final class PostgresSql implements SchemaCheck.Verdicts {

    /** The state of an in-flight row. */
    public static final String IN_FLIGHT = IdempotencyTable.IN_FLIGHT;
    /** The state of a completed row. */
    public static final String COMPLETED = IdempotencyTable.COMPLETED;

    private static final Pattern NAMED = Pattern.compile(":([a-z_]+)");
    /** The migration that adds the {@code caller} column. */
    public static final String CALLER_MIGRATION = Ddl.callerScript(SQLDialect.POSTGRES);
    private static final Set<String> UNREACHABLE_STATES = Set.of("57P01", "57P02", "57P03");
    /** query_canceled (a statement timeout), lock_not_available (a lock timeout), too_many_connections. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";
    private static final Set<String> BUSY_STATES = Set.of("57014", LOCK_NOT_AVAILABLE, "53300");
    private static final Set<String> START_OVER_STATES = Set.of("40001", "40P01");

    /**
     * One statement: its SQL with {@code $n} placeholders, the parameter name of each {@code $n} and
     * the Java type it is bound as (for a client that must type a {@code null}).
     */
    public record Statement(String sql, List<String> parameters, List<Class<?>> types) {
        public Statement {
            parameters = List.copyOf(parameters);
            types = List.copyOf(types);
        }
    }

    /** The three advisory-lock values of a won atomic reservation, and of the probe. */
    public record InFlightLocks(int keyHigh, int keyLow, int body) {
    }

    private final PostgresStatements statements;
    private final IdempotencyTable table;
    private final org.jooq.Name tableName;
    private final Statement reserveFresh;
    private final Statement reserve;
    private final Statement atomicReserve;
    private final Statement atomicReserveFresh;
    private final Statement find;
    private final Statement insertCompleted;
    private final Statement complete;
    private final Statement release;
    private final Statement renew;
    private final Statement purge;

    private PostgresSql(PostgresStatements s, IdempotencyTable table, org.jooq.Name tableName) {
        this.statements = s;
        this.table = table;
        this.tableName = tableName;
        reserveFresh = positional(s.reserveFresh);
        reserve = positional(s.reserve);
        atomicReserve = positional(s.atomicReserve);
        atomicReserveFresh = positional(s.atomicReserveFresh);
        find = positional(s.find);
        insertCompleted = positional(s.insertCompleted);
        complete = positional(s.complete);
        release = positional(s.release);
        renew = positional(s.renew);
        purge = positional(s.purge);
    }

    /**
     * {@code tenantSetting} when it is a custom setting ({@code prefix.name}), as
     * {@link JdbcStore.Builder#tenantSetting} accepts it.
     *
     * @throws IllegalArgumentException otherwise
     */
    public static String checkedTenantSetting(String tenantSetting) {
        return Ddl.checkedTenantSetting(tenantSetting);
    }

    /**
     * The statements on {@code tableName}: {@code table} or {@code schema.table}, as
     * {@link JdbcStore.Builder#tableName} takes it.
     */
    public static PostgresSql forTable(String tableName) {
        org.jooq.Name name = Ddl.parseTableName(tableName);
        IdempotencyTable table = new IdempotencyTable(name, SQLDialect.POSTGRES);
        return new PostgresSql(new PostgresStatements(table, SQLDialect.POSTGRES, false), table, name);
    }

    /**
     * The fresh-key reservation: a row {@code won}, or the row in the way with the record columns
     * (live or not), or none; anything but a win or a live record is settled by {@link #reserve()}.
     */
    public Statement reserveFresh() {
        return reserveFresh;
    }

    /** The take-over reservation: rows {@code won} and the record columns, or none (ask again). */
    public Statement reserve() {
        return reserve;
    }

    /** The atomic mode's reservation: {@link #reserve()} plus the three shared advisory locks when it wins. */
    public Statement atomicReserve() {
        return atomicReserve;
    }

    /**
     * The atomic mode's first attempt in a transaction: {@link #reserveFresh()} plus the three
     * shared advisory locks when it wins; anything but a win or a live record is settled by
     * {@link #atomicReserve()}.
     */
    public Statement atomicReserveFresh() {
        return atomicReserveFresh;
    }

    public Statement find() {
        return find;
    }

    public Statement insertCompleted() {
        return insertCompleted;
    }

    public Statement complete() {
        return complete;
    }

    public Statement release() {
        return release;
    }

    public Statement renew() {
        return renew;
    }

    public Statement purge() {
        return purge;
    }

    /**
     * The atomic transaction's settings, run first in it: parameters {@code lock_timeout},
     * {@code idle_timeout} and, with {@code withTenant}, {@code tenant_setting} and {@code tenant}.
     */
    public Statement atomicSettings(boolean withTenant) {
        return positional(PostgresStatements.ATOMIC_SETTINGS
                + (withTenant ? PostgresStatements.ATOMIC_TENANT_SETTING : ""), name -> String.class);
    }

    /** A later attempt's lock wait in the same transaction: parameter {@code lock_timeout}. */
    public Statement atomicLockTimeout() {
        return positional(PostgresStatements.ATOMIC_LOCK_TIMEOUT, name -> String.class);
    }

    /** Gives the handler the session's own lock wait back, after the atomic reservation. No parameters. */
    public String restoreLockTimeout() {
        return PostgresStatements.RESTORE_LOCK_TIMEOUT;
    }

    /**
     * For a client that bounds its statements on the server ({@code idempotency-vertx-sql}): the
     * statements after this one in the current transaction may run {@code millis} milliseconds
     * ({@code statement_timeout}, transaction-local: it ends with the transaction) — or less, when
     * the session's own {@code statement_timeout} is shorter: the shorter of the two applies, as
     * with JDBC's query timeout beside a session's. A statement without parameters, to send in one
     * (simple-protocol) message with the {@code BEGIN} before it.
     *
     * @throws IllegalArgumentException unless {@code millis} is positive
     */
    public static String localStatementTimeout(long millis) {
        if (millis <= 0) {
            throw new IllegalArgumentException("millis must be positive, was " + millis);
        }
        String bound = "'" + millis + "ms'";
        return "SELECT set_config('statement_timeout', CASE WHEN s = interval '0' OR s > interval " + bound
                + " THEN " + bound + " ELSE current_setting('statement_timeout') END, true)"
                + " FROM (SELECT cast(current_setting('statement_timeout') as interval) AS s) AS session";
    }

    /**
     * As {@link #localStatementTimeout}, first keeping the session's own {@code statement_timeout}
     * (transaction-local) for {@link #restoreLockAndStatementTimeout()}: for the atomic
     * transaction, whose handler's statements must run under the session's limit, not the store's.
     */
    public static String savedAndLocalStatementTimeout(long millis) {
        return "SELECT set_config('" + PostgresStatements.SAVED_STATEMENT_TIMEOUT
                + "', current_setting('statement_timeout'), true); " + localStatementTimeout(millis);
    }

    /**
     * {@link #restoreLockTimeout()} that also gives the handler back the session's
     * {@code statement_timeout} kept by {@link #savedAndLocalStatementTimeout}. No parameters.
     */
    public String restoreLockAndStatementTimeout() {
        return PostgresStatements.RESTORE_LOCK_TIMEOUT + ", set_config('statement_timeout', current_setting('"
                + PostgresStatements.SAVED_STATEMENT_TIMEOUT + "'), true)";
    }

    /**
     * After the atomic reservation's lock wait ran out (and its transaction rolled back): one read
     * of {@code pg_locks}, columns {@code same_body} and {@code key_held}; parameters
     * {@code body_lock}, {@code key_lock_low}, {@code key_lock_high}.
     */
    public Statement inFlightProbe() {
        String sql = PostgresInFlightLocks.PROBE.replace(":body_lock", "$1").replace(":key_lock_low", "$2")
                .replace(":key_lock_high", "$3");
        return new Statement(sql, List.of("body_lock", "key_lock_low", "key_lock_high"),
                List.of(Integer.class, Integer.class, Integer.class));
    }

    /**
     * What {@link #ddl(boolean, boolean, String)} needs to know, run after {@link #ddlLock()} in the
     * DDL's transaction: columns {@code present} (the table exists) and {@code caller} (it has the
     * caller column). Parameter {@code $1}: {@link #renderedTable()}.
     */
    public String tableState() {
        return "SELECT to_regclass($1) IS NOT NULL AS present, EXISTS (SELECT FROM pg_attribute"
                + " WHERE attrelid = to_regclass($1) AND attname = 'caller' AND attnum > 0 AND NOT attisdropped) AS caller";
    }

    /**
     * The shipped DDL for this table, as {@link JdbcStore#createTableIfMissing} runs it: the table
     * and its index ({@code V1}); unless {@code present}, the fillfactor migration ({@code V3},
     * for a table created now); unless {@code hasCaller}, the caller migration ({@code V4}, which
     * rebuilds the primary key of an existing table); with a {@code tenantSetting} the
     * row-level-security policy reading it.
     */
    public List<String> ddl(boolean present, boolean hasCaller, String tenantSetting) {
        org.jooq.DSLContext dsl = org.jooq.impl.DSL.using(SQLDialect.POSTGRES);
        String setting = tenantSetting == null ? Ddl.DEFAULT_TENANT_SETTING : tenantSetting;
        List<String> ddl = new ArrayList<>(Ddl.statements(dsl, Ddl.tableScript(SQLDialect.POSTGRES), tableName, setting));
        if (!present) {
            ddl.addAll(Ddl.statements(dsl, Ddl.fillfactorScript(), tableName, setting));
        }
        if (!hasCaller) {
            ddl.addAll(Ddl.statements(dsl, Ddl.callerScript(SQLDialect.POSTGRES), tableName, setting));
        }
        if (tenantSetting != null) {
            ddl.addAll(Ddl.statements(dsl, Ddl.rowLevelSecurityScript(), tableName, setting));
        }
        return ddl;
    }

    /**
     * The schema check's probe, as {@link JdbcStore#verifySchema()} runs it: {@code SELECT * FROM
     * <table> WHERE 1 = 0}, no parameters; the table resolves as in every statement. Hand the
     * result's column names to {@link #requireColumns}; a failure that the table does not exist
     * (SQLSTATE 42P01, 3F000) to {@link #missingTable}.
     */
    public String columnsProbe() {
        return statements.columnsProbe();
    }

    /** {@link #columnsProbe()} returning one row, for a client that reads column names off a row (R2DBC). */
    public String columnsRowProbe() {
        return statements.columnsRowProbe();
    }

    /**
     * The schema check's failure for a missing table, in {@link JdbcStore#verifySchema()}'s words.
     *
     * @param tableLabel the table as the store names it in messages
     * @param cause      the probe's failure
     */
    @Override
    public IllegalStateException missingTable(String tableLabel, Throwable cause) {
        return SchemaCheck.missingTable(tableLabel, SQLDialect.POSTGRES, cause);
    }

    /**
     * Passes when {@code present} (the probe's column names, any case) holds every column the
     * statements use.
     *
     * @throws IllegalStateException in {@link JdbcStore#verifySchema()}'s words: the missing
     *                               columns, and V4 when the caller is all that is missing
     */
    @Override
    public void requireColumns(String tableLabel, java.util.Collection<String> present) {
        SchemaCheck.requireColumns(table, tableLabel, SQLDialect.POSTGRES, present);
    }

    /** Serializes instances that create the table together: run first in the DDL's transaction. */
    public String ddlLock() {
        return statements.ddlLock();
    }

    /** The table as SQL, quoted ({@code "app"."idempotency_keys"}), for {@code to_regclass}. */
    public String renderedTable() {
        return org.jooq.impl.DSL.using(SQLDialect.POSTGRES).render(org.jooq.impl.DSL.table(tableName));
    }

    /** The value bound as {@code caller}: the bytes {@code key}'s caller spells in hex; empty when anonymous. */
    public static byte[] callerBytes(RecordKey key) {
        return IdempotencyTable.CALLER_BYTES.to(key.caller());
    }

    /** The advisory-lock values for {@code key} held with {@code fingerprint}. */
    public InFlightLocks inFlightLocks(RecordKey key, String fingerprint) {
        PostgresInFlightLocks.Values v = statements.inFlightLocks.of(key, fingerprint);
        return new InFlightLocks(v.keyHigh(), v.keyLow(), v.body());
    }

    private static Statement positional(SqlStatement statement) {
        return positional(statement.namedSql, statement::typeOf);
    }

    /** {@code :name} → {@code cast($n as <its type>)}, one index per distinct name. */
    private static Statement positional(String namedSql, java.util.function.Function<String, Class<?>> types) {
        Map<String, Integer> index = new LinkedHashMap<>();
        Matcher m = NAMED.matcher(namedSql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            int n = index.computeIfAbsent(name, k -> index.size() + 1);
            m.appendReplacement(out, Matcher.quoteReplacement("cast($" + n + " as " + sqlType(types.apply(name)) + ")"));
        }
        m.appendTail(out);
        List<String> names = new ArrayList<>(index.keySet());
        return new Statement(out.toString(), names, names.stream().<Class<?>>map(types).toList());
    }

    private static String sqlType(Class<?> type) {
        if (type == String.class) {
            return "text";
        }
        if (type == Short.class) {
            return "int2";
        }
        if (type == Integer.class) {
            return "int4";
        }
        if (type == byte[].class) {
            return "bytea";
        }
        if (type == Instant.class) {
            return "timestamptz";
        }
        throw new IllegalStateException("Unexpected parameter type " + type.getName());
    }

    /**
     * The outage a PostgreSQL error reports, the same for every client of the table:
     * {@code NOT_PROVISIONED} for a missing schema (3F000), the table missing (42P01 naming it) or
     * without its {@code caller} column ({@link #lacksCaller}); {@code UNREACHABLE} for class 08 and
     * 57P01–57P03 (shutdown, terminated backend, starting up); {@code BUSY} for 57014, 55P03 and
     * 53300; {@code null} for any other.
     */
    public static Reason outageOf(String sqlState, String message, String tableName) {
        String state = sqlState == null ? "" : sqlState;
        if (state.equals("3F000") || lacksCaller(state, message)
                || state.equals("42P01") && String.valueOf(message).contains(tableName)) {
            return Reason.NOT_PROVISIONED;
        }
        if (state.startsWith("08") || UNREACHABLE_STATES.contains(state)) {
            return Reason.UNREACHABLE;
        }
        return BUSY_STATES.contains(state) ? Reason.BUSY : null;
    }

    /**
     * The message of the {@code StorageUnavailableException} for {@code reason}, the same for every
     * client of the table.
     *
     * @param lacksCaller the table predates {@link #CALLER_MIGRATION} ({@link #lacksCaller})
     * @param detail      what the driver said
     */
    public static String outageMessage(Reason reason, String tableName, boolean lacksCaller, String detail) {
        return switch (reason) {
            case NOT_PROVISIONED -> lacksCaller
                    ? "Idempotency table " + tableName + " has no column caller: apply " + CALLER_MIGRATION
                    : "Idempotency table " + tableName + " does not exist: " + detail;
            case BUSY -> "Idempotency database busy: " + detail;
            case UNREACHABLE -> "Idempotency database unreachable: " + detail;
        };
    }

    /** Whether a PostgreSQL error is a statement on a table that predates {@link #CALLER_MIGRATION}. */
    public static boolean lacksCaller(String sqlState, String message) {
        return "42703".equals(sqlState) && String.valueOf(message).contains("caller");
    }

    /** 55P03: a statement's wait for a lock ran out ({@code lock_timeout}). */
    public static boolean isLockTimeout(String sqlState) {
        return LOCK_NOT_AVAILABLE.equals(sqlState);
    }

    /**
     * 40001 (serialization failure), 40P01 (deadlock): the database rolled the transaction back and
     * running it again may succeed. MariaDB/MySQL and H2 report the same standard states.
     */
    public static boolean mustStartOver(String sqlState) {
        return sqlState != null && START_OVER_STATES.contains(sqlState);
    }

    /** Who holds the key, from {@link #inFlightProbe()}'s columns {@code same_body} and {@code key_held}. */
    public static AtomicAttempt.Holder inFlightHolder(boolean sameBody, boolean keyHeld) {
        return sameBody ? AtomicAttempt.Holder.SAME_BODY
                : keyHeld ? AtomicAttempt.Holder.OTHER_BODY : AtomicAttempt.Holder.NOBODY;
    }
}
