package dev.idempotency.jdbc.internal;

import dev.idempotency.jdbc.JdbcStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.jooq.SQLDialect;

/**
 * {@link JdbcStore}'s MariaDB statements for another MariaDB client (the {@code idempotency-r2dbc}
 * store): the same jOOQ queries as {@link MySqlStatements} renders for MariaDB, with {@code ?}
 * placeholders bound by position. There is one description of the SQL; this hands out its text.
 *
 * <p>Each {@link Statement} names its parameters in placeholder order and the Java type each is
 * bound as; the values are those {@link JdbcStore} binds ({@code key}, {@code tenant_id},
 * {@code caller}, {@code method}, {@code path}, the other column names, {@code now}, {@code limit}),
 * instants as UTC {@code DATETIME(6)} values, {@code caller} as the bytes of
 * {@link PostgresSql#callerBytes}.
 * <p>Internal, not API: may change without notice.
 */
public final class MariaDbSql implements SchemaCheck.Verdicts {

    /** One statement: its SQL with {@code ?} placeholders, the parameter name and Java type of each. */
    public record Statement(String sql, List<String> parameters, List<Class<?>> types) {
        public Statement {
            parameters = List.copyOf(parameters);
            types = List.copyOf(types);
        }
    }

    private final MySqlStatements statements;
    private final org.jooq.Name tableName;
    private final Statement upsert;
    private final Statement find;
    private final Statement complete;
    private final Statement release;
    private final Statement renew;
    private final Statement purge;

    private MariaDbSql(MySqlStatements s, org.jooq.Name tableName) {
        this.statements = s;
        this.tableName = tableName;
        upsert = of(s.upsert);
        find = of(s.find);
        complete = of(s.complete);
        release = of(s.release);
        renew = of(s.renew);
        purge = of(s.purgeStatement());
    }

    /** The statements on {@code tableName}: {@code table} or {@code database.table}, as {@link JdbcStore.Builder#tableName} takes it. */
    public static MariaDbSql forTable(String tableName) {
        org.jooq.Name name = Ddl.parseTableName(tableName);
        IdempotencyTable table = new IdempotencyTable(name, SQLDialect.MARIADB);
        return new MariaDbSql(new MySqlStatements(table, SQLDialect.MARIADB, false, true), name);
    }

    /**
     * The reservation and the optimistic insert: one {@code INSERT … ON DUPLICATE KEY UPDATE} that
     * takes the row over only when it is not live, {@code RETURNING} the record columns of the row
     * as it stands afterwards. Whoever's {@code owner_token} the row holds won ({@link MySqlStatements}).
     */
    public Statement upsert() {
        return upsert;
    }

    public Statement find() {
        return find;
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

    /** One purge batch ({@code :now}, {@code :limit}); run it under {@link #takePurgeLock()}. */
    public Statement purge() {
        return purge;
    }

    /**
     * {@link JdbcStore}'s purge lock, a named lock of the session taken without waiting: column 1
     * is 1 when taken. While another instance (of either store) purges the table, skip the batch.
     * One parameter, {@link #purgeLockName()}.
     */
    public String takePurgeLock() {
        return "SELECT " + MySqlStatements.TAKE_PURGE_LOCK;
    }

    /** Releases {@link #takePurgeLock()}; the same parameter. */
    public String releasePurgeLock() {
        return "SELECT " + MySqlStatements.RELEASE_PURGE_LOCK;
    }

    /** The value the purge lock's statements bind: the table's name as given. */
    public String purgeLockName() {
        return String.join(".", tableName.getName());
    }

    /** Whether a vendor error code says the server has no named locks (a Galera cluster): purge without. */
    public static boolean lacksNamedLocks(int errorCode) {
        return errorCode == MySqlStatements.NOT_SUPPORTED_YET;
    }

    /**
     * {@code sql} bounded to {@code millis} milliseconds by MariaDB itself, lock waits included:
     * {@code SET STATEMENT max_statement_time=… FOR <sql>}, which sets nothing on the session
     * (MariaDB Connector/J's query timeout does the same). Running out fails with error 1969,
     * SQLSTATE 70100 ({@link SqlFailures}: {@code BUSY}).
     *
     * @throws IllegalArgumentException unless {@code millis} is positive
     */
    public static String bounded(String sql, long millis) {
        if (millis <= 0) {
            throw new IllegalArgumentException("millis must be positive, was " + millis);
        }
        return String.format(Locale.ROOT, "SET STATEMENT max_statement_time=%d.%03d FOR %s", millis / 1000,
                millis % 1000, sql);
    }

    /**
     * The atomic mode's statements, as {@code JdbcStore}'s MariaDB session sends them: before the
     * transaction, the session's {@code innodb_lock_wait_timeout} saved and set to {@code wait} (whole
     * seconds, rounded up; 0 does not wait).
     */
    public static String atomicLockWait(Duration wait) {
        return MySqlStatements.Session.saveAndSetLockWait(MySqlStatements.Session.seconds(wait, true));
    }

    /** A later attempt's lock wait in the same transaction. */
    public static String atomicLockWaitAgain(Duration wait) {
        return MySqlStatements.Session.setLockWait(MySqlStatements.Session.seconds(wait, true));
    }

    /** Gives the session its saved lock wait back: after a won reservation, and after a rollback. */
    public static String restoreLockWait() {
        return MySqlStatements.Session.RESTORE_LOCK_WAIT;
    }

    /** The isolation of the next transaction only: the atomic transaction's. */
    public static String readCommittedNext() {
        return MySqlStatements.Session.READ_COMMITTED_NEXT;
    }

    /** The isolation of the next transaction only: the dirty read that tells who holds a key. */
    public static String readUncommittedNext() {
        return MySqlStatements.Session.READ_UNCOMMITTED_NEXT;
    }

    /** Whether a vendor error code says the wait for a row lock ran out (1205). */
    public static boolean isLockTimeout(int errorCode) {
        return errorCode == MySqlStatements.Session.LOCK_WAIT_TIMEOUT;
    }

    /** The schema check's probe, as {@link PostgresSql#columnsRowProbe()}: one row holding every column. */
    public String columnsRowProbe() {
        return statements.columnsRowProbe();
    }

    @Override
    public IllegalStateException missingTable(String tableLabel, Throwable cause) {
        return SchemaCheck.missingTable(tableLabel, SQLDialect.MARIADB, cause);
    }

    @Override
    public void requireColumns(String tableLabel, Collection<String> present) {
        SchemaCheck.requireColumns(statements.t, tableLabel, SQLDialect.MARIADB, present);
    }

    /**
     * The shipped DDL for this table, for {@code createTableIfMissing} in development: the table
     * ({@code V1}) and the caller migration ({@code V4}); both may run again, and V4 rebuilds
     * nothing on a table that has the caller already.
     */
    public List<String> ddl() {
        org.jooq.DSLContext dsl = org.jooq.impl.DSL.using(SQLDialect.MARIADB);
        List<String> ddl = new ArrayList<>(Ddl.statements(dsl, Ddl.tableScript(SQLDialect.MARIADB), tableName,
                Ddl.DEFAULT_TENANT_SETTING));
        ddl.addAll(Ddl.statements(dsl, Ddl.callerScript(SQLDialect.MARIADB), tableName, Ddl.DEFAULT_TENANT_SETTING));
        return ddl;
    }

    /** Serializes instances that create the table together: a named lock of the session, taken first. */
    public String ddlLock() {
        return statements.ddlLock();
    }

    /** Releases {@link #ddlLock()}. */
    public String ddlUnlock() {
        return statements.ddlUnlock();
    }

    private static Statement of(SqlStatement statement) {
        return new Statement(statement.sql, statement.parameters(), statement.parameterTypes());
    }
}
