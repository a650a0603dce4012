package dev.idempotency.sql;

import dev.idempotency.core.store.StorageUnavailableException.Reason;
import java.util.Set;

/**
 * What a database error means to the stores, by its SQLSTATE, vendor code and message, whatever
 * the client: the drivers' exception types stay in each store, which hands their codes here.
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>NOT_PROVISIONED</td><td>42P01 naming the store's table, 3F000, 42703 naming {@code caller}
 *       (PostgreSQL); 42S02, 42102 (MariaDB/MySQL, H2); MariaDB/MySQL error 1146, H2 errors 42102–42104</td></tr>
 *   <tr><td>UNREACHABLE</td><td>class 08 (connection exception), PostgreSQL's 57P01–57P03, H2 errors
 *       90067, 90098, 90121 (connection broken, database closed)</td></tr>
 *   <tr><td>BUSY</td><td>PostgreSQL's 57014, 55P03 and 53300, 70100 (MariaDB/MySQL interrupted);
 *       MariaDB/MySQL errors 1205 (lock wait timeout), 1969 and 3024 (statement time exceeded), H2
 *       error 50200 (lock timeout)</td></tr>
 * </table>
 */
public final class SqlErrors {

    private static final Set<String> UNREACHABLE_STATES = Set.of("57P01", "57P02", "57P03");
    /** lock_not_available: a lock timeout (PostgreSQL). */
    private static final String LOCK_NOT_AVAILABLE = "55P03";
    /** query_canceled (a statement timeout), lock_not_available, too_many_connections; 70100 MariaDB/MySQL interrupted. */
    private static final Set<String> BUSY_STATES = Set.of("57014", LOCK_NOT_AVAILABLE, "53300", "70100");
    private static final Set<String> START_OVER_STATES = Set.of("40001", "40P01");
    private static final Set<String> MISSING_TABLE_STATES = Set.of("42S02", "42102");
    private static final Set<Integer> MISSING_TABLE_CODES = Set.of(1146, 42102, 42103, 42104);
    private static final Set<Integer> H2_UNREACHABLE_CODES = Set.of(90067, 90098, 90121);
    /** ER_LOCK_WAIT_TIMEOUT (MariaDB/MySQL), LOCK_TIMEOUT_1 (H2). */
    private static final Set<Integer> LOCK_TIMEOUT_CODES = Set.of(1205, 50200);
    /** Lock wait timeout, statement time exceeded (MariaDB, MySQL); H2: lock timeout. */
    private static final Set<Integer> BUSY_CODES = Set.of(1205, 1969, 3024, 50200);
    /** What a server without named locks (MariaDB Galera) answers GET_LOCK with. */
    private static final int NOT_SUPPORTED_YET = 1235;
    private static final String INVALID_TEXT_REPRESENTATION = "22P02";
    private static final String UNIQUE_VIOLATION = "23505";

    /** What PostgreSQL's {@code completeAndCommit} fails with on purpose when its UPDATE found no row. */
    public static final String RESERVATION_GONE = "idempotency: the reservation row was gone at completion";

    private SqlErrors() {
    }

    /**
     * The outage an error reports, or {@code null} for any other error.
     *
     * @param tableName the table's own name (no schema), which PostgreSQL's 42P01 must name
     */
    public static Reason outageOf(String sqlState, int errorCode, String message, String tableName) {
        String state = sqlState == null ? "" : sqlState;
        if (state.equals("3F000") || lacksCaller(state, message)
                || state.equals("42P01") && String.valueOf(message).contains(tableName)
                || MISSING_TABLE_STATES.contains(state) || MISSING_TABLE_CODES.contains(errorCode)) {
            return Reason.NOT_PROVISIONED;
        }
        if (state.startsWith("08") || UNREACHABLE_STATES.contains(state) || H2_UNREACHABLE_CODES.contains(errorCode)) {
            return Reason.UNREACHABLE;
        }
        return BUSY_STATES.contains(state) || BUSY_CODES.contains(errorCode) ? Reason.BUSY : null;
    }

    /**
     * The message of the {@code StorageUnavailableException} for {@code reason}, the same for every store.
     *
     * @param lacksCaller the table predates the caller migration ({@link #lacksCaller})
     * @param detail      what the driver said
     */
    public static String outageMessage(Reason reason, String tableName, boolean lacksCaller, String detail) {
        return switch (reason) {
            case NOT_PROVISIONED -> lacksCaller
                    ? "Idempotency table " + tableName + " has no column caller: apply "
                            + Ddl.callerScript(SqlDialect.POSTGRES)
                    : "Idempotency table " + tableName + " does not exist: " + detail;
            case BUSY -> "Idempotency database busy: " + detail;
            case UNREACHABLE -> "Idempotency database unreachable: " + detail;
        };
    }

    /** Whether a PostgreSQL error is a statement on a table that predates the caller migration. */
    public static boolean lacksCaller(String sqlState, String message) {
        return "42703".equals(sqlState) && String.valueOf(message).contains("caller");
    }

    /** A statement's wait for a row lock ran out: 55P03 (PostgreSQL), 1205 (MariaDB/MySQL), 50200 (H2). */
    public static boolean isLockTimeout(String sqlState, int errorCode) {
        return LOCK_NOT_AVAILABLE.equals(sqlState) || LOCK_TIMEOUT_CODES.contains(errorCode);
    }

    /**
     * 40001 (serialization failure), 40P01 (deadlock): the database rolled the transaction back and
     * running it again may succeed. MariaDB/MySQL and H2 report the same standard states.
     */
    public static boolean mustStartOver(String sqlState) {
        return sqlState != null && START_OVER_STATES.contains(sqlState);
    }

    /** A vendor code saying the server has no named locks (a Galera cluster): purge without. */
    public static boolean lacksNamedLocks(int errorCode) {
        return errorCode == NOT_SUPPORTED_YET;
    }

    /** The deliberate failure of PostgreSQL's {@code completeAndCommit} when its UPDATE found no row. */
    public static boolean isReservationGone(String sqlState, String message) {
        return INVALID_TEXT_REPRESENTATION.equals(sqlState) && message != null && message.contains(RESERVATION_GONE);
    }

    /** 23505: a unique or primary-key violation (H2's lost race for a new key). */
    public static boolean isUniqueViolation(String sqlState) {
        return UNIQUE_VIOLATION.equals(sqlState);
    }
}
