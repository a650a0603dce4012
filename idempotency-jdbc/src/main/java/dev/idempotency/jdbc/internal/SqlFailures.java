package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StorageUnavailableException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.jooq.exception.DataAccessException;

/**
 * Tells a missing table and an unreachable database apart from every other failure, so the
 * engine can answer 503 for them.
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>NOT_PROVISIONED</td><td>PostgreSQL's states ({@link PostgresSql#outageOf}: 42P01 naming
 *       the store's table, 3F000, 42703 naming {@code caller}), 42S02 (MariaDB/MySQL, H2), H2 errors
 *       42102–42104, MariaDB/MySQL error 1146</td></tr>
 *   <tr><td>UNREACHABLE</td><td>SQLState class 08 (connection exception), PostgreSQL's 57P01–57P03,
 *       {@link SQLNonTransientConnectionException}, H2 errors 90067,
 *       90098, 90121 (connection broken, database closed), and a {@link ConnectException},
 *       {@link NoRouteToHostException}, {@link UnknownHostException} or
 *       {@link SocketTimeoutException} anywhere in the causes (also behind a pool timeout)</td></tr>
 *   <tr><td>BUSY</td><td>{@link SQLTransientConnectionException} (the pool's connection timeout)
 *       with no connection failure behind it; a {@link SQLTimeoutException} (JDBC's query timeout);
 *       PostgreSQL's 57014, 55P03 and 53300, 70100 (MariaDB/MySQL interrupted); MariaDB/MySQL errors 1205 (lock wait
 *       timeout), 1969 and 3024 (statement time exceeded), H2 error 50200 (lock timeout)</td></tr>
 * </table>
 * <p>Internal, not API: may change without notice.
 */
public final class SqlFailures {

    private static final Set<String> MISSING_TABLE_STATES = Set.of("42S02", "42102");
    private static final Set<Integer> MISSING_TABLE_CODES = Set.of(1146, 42102, 42103, 42104);
    private static final Set<Integer> H2_UNREACHABLE_CODES = Set.of(90067, 90098, 90121);
    /** MariaDB/MySQL's interrupted statement (max_statement_time). */
    private static final Set<String> BUSY_STATES = Set.of("70100");
    /** MariaDB/MySQL: lock wait timeout, statement time exceeded (MariaDB, MySQL); H2: lock timeout. */
    private static final Set<Integer> BUSY_CODES = Set.of(1205, 1969, 3024, 50200);

    private SqlFailures() {
    }

    /**
     * The {@link StorageUnavailableException} {@code failure} amounts to; otherwise {@code failure}
     * itself, a checked one wrapped in jOOQ's unchecked {@link DataAccessException}.
     */
    public static RuntimeException translate(Exception failure, String tableName) {
        if (failure instanceof StorageUnavailableException already) {
            return already;
        }
        Reason reason = reasonOf(failure, tableName.substring(tableName.lastIndexOf('.') + 1));
        if (reason == null) {
            if (failure instanceof RuntimeException runtime) {
                return runtime;
            }
            return new DataAccessException("Idempotency store statement failed: " + failure.getMessage(), failure);
        }
        String message = PostgresSql.outageMessage(reason, tableName,
                reason == Reason.NOT_PROVISIONED && lacksCaller(failure), rootMessage(failure));
        return new StorageUnavailableException(reason, message, failure);
    }

    /** The reason behind {@code failure}, or {@code null} when it is neither kind of outage. */
    static Reason reasonOf(Throwable failure, String tableName) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        Reason found = null;
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            Reason reason = classify(t, tableName);
            if (reason == Reason.NOT_PROVISIONED) {
                return reason;
            }
            if (reason != null) {
                found = reason;
            }
            if (t instanceof SQLException sql) {
                for (SQLException next = sql.getNextException(); next != null && seen.put(next, Boolean.TRUE) == null;
                        next = next.getNextException()) {
                    Reason nextReason = classify(next, tableName);
                    if (nextReason != null) {
                        found = found == null ? nextReason : found;
                    }
                }
            }
        }
        return found;
    }

    /**
     * The outage a database error reports by its SQLSTATE, vendor code and message, whatever the
     * client (JDBC here, R2DBC in idempotency-r2dbc): {@link PostgresSql#outageOf} first, then the
     * missing-table, H2 connection and busy states and codes of the table above; {@code null} for
     * any other error.
     */
    public static Reason outageOf(String sqlState, int errorCode, String message, String tableName) {
        String state = sqlState == null ? "" : sqlState;
        Reason postgres = PostgresSql.outageOf(state, message, tableName);
        if (postgres != null) {
            return postgres;
        }
        if (MISSING_TABLE_STATES.contains(state) || MISSING_TABLE_CODES.contains(errorCode)) {
            return Reason.NOT_PROVISIONED;
        }
        if (H2_UNREACHABLE_CODES.contains(errorCode)) {
            return Reason.UNREACHABLE;
        }
        return BUSY_STATES.contains(state) || BUSY_CODES.contains(errorCode) ? Reason.BUSY : null;
    }

    private static Reason classify(Throwable t, String tableName) {
        if (t instanceof SQLException sql) {
            Reason reason = outageOf(sql.getSQLState(), sql.getErrorCode(), sql.getMessage(), tableName);
            if (reason != null) {
                return reason;
            }
            if (sql instanceof SQLNonTransientConnectionException) {
                return Reason.UNREACHABLE;
            }
            if (sql instanceof SQLTransientConnectionException || sql instanceof SQLTimeoutException) {
                // A pool timeout with no connection failure behind it (a cause, classified deeper,
                // overrides this): every connection is in use. Or a statement ran out of its time.
                return Reason.BUSY;
            }
            return null;
        }
        if (t instanceof ConnectException || t instanceof NoRouteToHostException
                || t instanceof UnknownHostException || t instanceof SocketTimeoutException) {
            return Reason.UNREACHABLE;
        }
        return null;
    }

    private static boolean lacksCaller(Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof SQLException sql && PostgresSql.lacksCaller(sql.getSQLState(), sql.getMessage())) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }
}
