package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.sql.SqlErrors;
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
import org.jooq.exception.DataAccessException;

/**
 * Tells a missing table and an unreachable database apart from every other failure, so the
 * engine can answer 503 for them: the SQLSTATEs and vendor codes of {@link SqlErrors#outageOf},
 * and besides
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>UNREACHABLE</td><td>{@link SQLNonTransientConnectionException}, and a {@link ConnectException},
 *       {@link NoRouteToHostException}, {@link UnknownHostException} or
 *       {@link SocketTimeoutException} anywhere in the causes (also behind a pool timeout)</td></tr>
 *   <tr><td>BUSY</td><td>{@link SQLTransientConnectionException} (the pool's connection timeout)
 *       with no connection failure behind it; a {@link SQLTimeoutException} (JDBC's query timeout)</td></tr>
 * </table>
 * <p>Internal, not API: may change without notice.
 */
public final class SqlFailures {

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
        String message = SqlErrors.outageMessage(reason, tableName,
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

    private static Reason classify(Throwable t, String tableName) {
        if (t instanceof SQLException sql) {
            Reason reason = SqlErrors.outageOf(sql.getSQLState(), sql.getErrorCode(), sql.getMessage(), tableName);
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
            if (t instanceof SQLException sql && SqlErrors.lacksCaller(sql.getSQLState(), sql.getMessage())) {
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
